export default function Page() {
  return (
    <main>
      <h1>dev.mailbox</h1>
    </main>
  );
}
