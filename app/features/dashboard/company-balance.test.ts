// The dashboard's company balance (ADR 0043):
// every manager sees it with a link to the statement; only an Owner (the API's canTopUp) is
// offered "Top up". Rendered on the server as React Router does.
import { createElement } from "react";
import { renderToStaticMarkup } from "react-dom/server";
import { MemoryRouter } from "react-router";
import { describe, expect, it } from "vitest";
import { CompanyBalance } from "./company-balance.tsx";

function render(canTopUp: boolean): string {
  return renderToStaticMarkup(
    createElement(
      MemoryRouter,
      { initialEntries: ["/portal/dashboard"] },
      createElement(CompanyBalance, { balance: { balanceCents: 123_45, canTopUp } }),
    ),
  );
}

describe("the dashboard's company balance", () => {
  it("a Manager sees the balance and the statement, and is not offered a top-up", () => {
    const html = render(false);
    expect(html).toContain("Company balance");
    expect(html).toContain("$123.45");
    expect(html).toContain('href="/portal/settings/balance"');
    expect(html).toContain("View the statement");
    expect(html).not.toContain("Top up");
  });

  it("an Owner is offered the top-up as well", () => {
    const html = render(true);
    expect(html).toContain("$123.45");
    expect(html).toMatch(/<a[^>]*href="\/portal\/settings\/balance"[^>]*>Top up<\/a>/);
    expect(html).toContain("View the statement");
  });
});
