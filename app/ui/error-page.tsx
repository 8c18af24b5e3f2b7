import { Link } from "react-router";

/** docs/requirements.md §S2's generic error page: 'Error', the fixed sentence, the message, 'Go back home'. */
export function ErrorPage({ message, status }: { message?: string; status?: number }) {
  return (
    <main className="mx-auto flex min-h-[70vh] max-w-xl flex-col items-center justify-center px-4 py-16 text-center">
      <h1 className="text-4xl font-bold text-brand-800">Error</h1>
      <p className="mt-4 text-lg">Sorry, an unexpected error has occurred.</p>
      {message ? (
        <p className="mt-2 text-slate-600">
          <i>{status && status !== 500 ? `${status} ${message}` : message}</i>
        </p>
      ) : null}
      <Link
        to="/"
        className="mt-8 inline-flex min-h-11 items-center rounded-md bg-brand-700 px-6 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
      >
        Go back home
      </Link>
    </main>
  );
}
