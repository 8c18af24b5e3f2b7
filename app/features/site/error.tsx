import { ErrorPage } from "../../ui/error-page.tsx";
import type { Route } from "./+types/error";

export const meta: Route.MetaFunction = () => [{ title: "Error" }, { name: "robots", content: "noindex" }];

export default function ErrorRoute() {
  return <ErrorPage />;
}
