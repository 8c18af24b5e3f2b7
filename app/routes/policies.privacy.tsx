export default function Page() {
  return (
    <main>
      <h1>policies.privacy</h1>
    </main>
  );
}
