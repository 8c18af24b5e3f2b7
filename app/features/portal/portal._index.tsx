import { redirect } from "react-router";
import { DASHBOARD_PATH } from "./portal-pages.ts";

export function loader() {
  return redirect(DASHBOARD_PATH);
}
