// The scheduled order's page for a cancelled order whose refund the scheduler gave up on (ADR 0041
// amendment "Refunds retried with backoff"): it says the refund failed and names the support
// address to contact, instead of "on its way". Rendered on the server as React Router does for a
// cancelled order (no forms on the page then), with the loader's data as the API answers it.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import type { RewardOrderView } from "../../../modules/scheduled-sends/schema.ts";
import ScheduledRewardPage from "./portal.scheduled.order.tsx";

const ORDER: RewardOrderView = {
  orderId: 42,
  state: "cancelled",
  rewardName: "Holiday thanks",
  sendAt: "2026-12-01T09:00:00.000Z",
  recipientCount: 1,
  rewardsCents: 10_000,
  serviceFeeCents: 1_000,
  gstCents: 100,
  totalCents: 11_100,
  invoiceNumber: "INV-000042",
  paidAt: "2026-11-27T09:00:00.000Z",
  releasedAt: null,
  rewardReleaseId: null,
  cancelledAt: "2026-11-27T10:00:00.000Z",
  refundedAt: null,
  refundFailedAt: null,
  cancelledForRemoved: null,
  paidFrom: "card",
};

function render(order: RewardOrderView): string {
  const loaderData = { order, bounds: { min: "", max: "" }, supportEmail: "refund-desk@rewards.test" };
  const props = { loaderData, actionData: undefined, params: { orderId: "42" }, matches: [] };
  return renderToStaticMarkup(
    createElement(
      MemoryRouter,
      { initialEntries: ["/portal/scheduled/42"] },
      createElement(ScheduledRewardPage as never, props as never),
    ),
  );
}

describe("a cancelled order's refund on its page", () => {
  it("says a refund given up on failed, and whom to contact", () => {
    const html = render({ ...ORDER, refundFailedAt: "2026-11-30T10:00:00.000Z" });
    expect(html).toContain("The refund failed");
    expect(html).toContain("contact support");
    expect(html).toContain('href="mailto:refund-desk@rewards.test"');
    expect(html).not.toContain("On its way");
  });

  it("still says on its way while the refund is being retried, and refunded once made", () => {
    expect(render(ORDER)).toContain("On its way");
    expect(render(ORDER)).not.toContain("The refund failed");
    const refunded = render({ ...ORDER, refundedAt: "2026-11-27T10:00:05.000Z" });
    expect(refunded).toContain("$111.00 refunded on");
    expect(refunded).not.toContain("contact support");
  });
});
