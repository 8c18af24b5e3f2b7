// Placeholder until the portal shell lands.
import { Outlet } from "react-router";

export default function Portal() {
  return <Outlet />;
}
