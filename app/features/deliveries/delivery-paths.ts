// Where a released reward's delivery page lives in the portal.
import { href } from "react-router";

export const releasePath = (releaseId: number) => href("/portal/rewards/:releaseId", { releaseId: String(releaseId) });
