// Placeholder until the accounts pages land.
export default function Page() {
  return <h1>corporate.forgot-password</h1>;
}
