import { redirect } from "react-router";
import { DASHBOARD_PATH } from "../lib/portal.ts";

export function loader() {
  return redirect(DASHBOARD_PATH);
}
