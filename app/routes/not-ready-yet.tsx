export default function Page() {
  return (
    <main>
      <h1>not-ready-yet</h1>
    </main>
  );
}
