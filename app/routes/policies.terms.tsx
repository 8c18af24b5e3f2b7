export default function Page() {
  return (
    <main>
      <h1>policies.terms</h1>
    </main>
  );
}
