// Placeholder until the accounts pages land.
import { redirect } from "react-router";

export function loader() {
  return redirect("/corporate/login");
}
