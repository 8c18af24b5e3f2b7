import { data } from "react-router";

// Any path no other route claims: the error boundary renders the error page with 404.
export function loader() {
  throw data("Not Found", { status: 404 });
}

export default function NotFound() {
  return null;
}
