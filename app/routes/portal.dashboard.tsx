// Placeholder until the accounts pages land.
export default function Page() {
  return <h1>portal.dashboard</h1>;
}
