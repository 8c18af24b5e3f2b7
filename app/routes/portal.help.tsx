// Placeholder until the accounts pages land.
export default function Page() {
  return <h1>portal.help</h1>;
}
