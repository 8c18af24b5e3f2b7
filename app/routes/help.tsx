export default function Page() {
  return (
    <main>
      <h1>help</h1>
    </main>
  );
}
