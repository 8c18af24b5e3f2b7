// Where a paid order that was scheduled (waiting, or cancelled) lives in the portal.
import { href } from "react-router";

export const scheduledPath = (orderId: number) => href("/portal/scheduled/:orderId", { orderId: String(orderId) });
