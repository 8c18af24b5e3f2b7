// Settings › Audit (ADR 0022 point 7), in all four projects (JavaScript on and off, 360 and
// 1280 px): an Owner's changes (a team member, the draft's name, the company's details) are
// listed newest first with who made them; the Kind filter (a GET form) narrows the list; the
// downloaded CSV holds the same rows as the page.
import { readFileSync } from "node:fs";
import { parse } from "csv-parse/sync";
import { addMembers, expect, member, test, VALID_ABN } from "./fixtures.ts";
import { visit } from "./support.ts";

test("an Owner sees the company's changes, filters them by kind and downloads the same rows as CSV", async ({
  page,
  manager,
}) => {
  await addMembers(page.request, manager, [member("Audra", "Trail")]);
  const named = await page.request.put("/api/RewardMyTeam/update-reward-name", {
    headers: manager.headers,
    data: { name: "Audit thanks" },
  });
  expect(named.status(), await named.text()).toBe(200);
  const saved = await page.request.put("/api/Companies/", {
    headers: manager.headers,
    data: { name: manager.companyName, ABN: VALID_ABN, size: "51-200", industry: "Retail" },
  });
  expect(saved.status(), await saved.text()).toBe(200);

  await visit(page, "/portal/settings");
  await page.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Audit" }).click();
  await expect(page).toHaveURL(/\/portal\/settings\/audit$/);
  const table = page.getByRole("table", { name: /Audit trail/ });
  const rows = table.locator("tbody tr");
  // Newest first: the company details, then the draft's name, then the team member.
  await expect(rows.nth(0)).toContainText("settings.company_updated");
  await expect(rows.nth(1)).toContainText("draft.name_set");
  await expect(rows.nth(1)).toContainText("to: Audit thanks");
  await expect(rows.nth(2)).toContainText("members.imported");
  await expect(rows.nth(0)).toContainText(`${manager.firstName} ${manager.lastName}`);

  await page.getByLabel("Kind").selectOption({ label: "Team members" });
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(page).toHaveURL(/kind=team/);
  await expect(rows).toHaveCount(1);
  await expect(rows.first()).toContainText("members.imported");

  await page.getByLabel("Kind").selectOption({ label: "Every kind" });
  await page.getByRole("button", { name: "Filter" }).click();
  await expect(rows.nth(2)).toContainText("members.imported");
  const listed = await rows.evaluateAll((trs) =>
    trs.map((tr) => tr.querySelectorAll("td")[2]?.querySelector("code")?.textContent),
  );

  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download CSV" }).click();
  const file = await (await download).path();
  const csv = parse(readFileSync(file, "utf8"), { bom: true }) as string[][];
  expect(csv[0]).toEqual(["Time (Australia/Sydney)", "Who", "Email", "Action", "Subject", "Details", "Address"]);
  expect(csv.slice(1).map((r) => r[3])).toEqual(listed);
  expect(csv[1]?.[1]).toBe(`${manager.firstName} ${manager.lastName}`);
});

test("a bad date range says so and lists nothing", async ({ page, manager: _ }) => {
  await visit(page, "/portal/settings/audit?from=2026-03-02&to=2026-03-01");
  await expect(page.getByRole("alert")).toHaveText("From must be on or before To.");
  await expect(page.getByRole("table")).toHaveCount(0);
});
