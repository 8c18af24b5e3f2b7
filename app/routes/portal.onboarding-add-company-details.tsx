// Placeholder until the accounts pages land.
export default function Page() {
  return <h1>portal.onboarding-add-company-details</h1>;
}
