// Settings › Audit (ADR 0022 point 7), in all four projects (JavaScript on and off, 360 and
// 1280 px): an Owner's changes (a team member, the draft's name, the company's details) are
// listed newest first with who made them; the Kind filter (a GET form) narrows the list; the
// downloaded CSV holds the same rows as the page.
import { readFileSync } from "node:fs";
import type { APIRequestContext, Page } from "@playwright/test";
import { parse } from "csv-parse/sync";
import { Secret, TOTP } from "otpauth";
import { addMembers, expect, type Manager, member, signIn, test, VALID_ABN } from "./fixtures.ts";
import { uniqueEmail, visit } from "./support.ts";

/** The invitation link's token in the newest email to `email` in the dev mailbox. */
async function inviteToken(request: APIRequestContext, email: string): Promise<string> {
  let token = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/dev/mailbox")).text();
        const message = html.split("<article").find((part) => part.includes(email));
        token = message?.match(/accept-invite\?token=([A-Za-z0-9_-]+)/)?.[1] ?? "";
        return token;
      },
      { message: `invitation email to ${email}`, timeout: 15_000 },
    )
    .not.toBe("");
  return token;
}

/** Posts `data` with `manager`'s token and expects a 2xx; answers the JSON body, if any. */
async function apiCall(page: Page, token: string, method: "POST" | "PUT", path: string, data?: unknown) {
  const res = await page.request.fetch(path, {
    method,
    headers: { authorization: `Bearer ${token}` },
    ...(data === undefined ? {} : { data }),
  });
  expect(res.ok(), `${method} ${path}: ${res.status()} ${await res.text()}`).toBe(true);
  const text = await res.text();
  return text ? JSON.parse(text) : undefined;
}

/**
 * Through the API, one change of each kind ADR 0022 records: an invitation accepted, a role
 * changed and back, the approval threshold, a Manager's approval request approved by the Owner,
 * two-factor set up, the password changed. Answers the actions in the order they were made.
 */
async function everyKindOfChange(page: Page, owner: Manager): Promise<string[]> {
  const email = uniqueEmail("audit-invitee");
  await apiCall(page, owner.accessToken, "POST", "/api/Managers/invites", { email, role: "manager" });
  const accepted = await apiCall(page, owner.accessToken, "POST", "/api/ManagerInvites/accept", {
    token: await inviteToken(page.request, email),
    firstName: "Ivy",
    lastName: "Invitee",
    password: "Welcome#2026",
    confirmPassword: "Welcome#2026",
  });
  const colleague = accepted.accessToken as string;
  const { managers } = (await (await page.request.get("/api/Managers", { headers: owner.headers })).json()) as {
    managers: { id: number; email: string }[];
  };
  const ivy = managers.find((m) => m.email === email)?.id;
  await apiCall(page, owner.accessToken, "PUT", `/api/Managers/${ivy}/role`, { role: "owner" });
  await apiCall(page, owner.accessToken, "PUT", `/api/Managers/${ivy}/role`, { role: "manager" });
  await apiCall(page, owner.accessToken, "PUT", "/api/Approvals/threshold", { thresholdDollars: 50 });

  // The colleague (a Manager) rewards a member $100: $111 with the fee and its GST, over the threshold.
  const [tia] = await addMembers(
    page.request,
    { ...owner, headers: { authorization: `Bearer ${colleague}` } } as Manager,
    [member("Tia", "Team")],
  );
  await apiCall(page, colleague, "POST", "/api/RewardMyTeam/create-reward-search", { userId: tia?.id });
  await apiCall(page, colleague, "PUT", "/api/RewardMyTeam/update-reward", { userId: tia?.id, value: "100" });
  await apiCall(page, colleague, "PUT", "/api/RewardMyTeam/update-reward-name", { name: "Big thanks" });
  const request = await apiCall(page, colleague, "POST", "/api/Approvals/request", { amount: 11_100 });
  await apiCall(page, owner.accessToken, "POST", `/api/Approvals/${request.orderId}/approve`);

  const setup = await apiCall(page, owner.accessToken, "POST", "/api/TwoFactor/setup", {});
  const code = TOTP.generate({ secret: Secret.fromBase32(setup.secret), timestamp: Date.now() });
  await apiCall(page, owner.accessToken, "POST", "/api/TwoFactor/confirm", { code, password: owner.password });
  await apiCall(page, owner.accessToken, "POST", "/api/Users/MyPassword", {
    currentPassword: owner.password,
    newPassword: "Changed#Pass2026",
  });
  // Off again, so the page below is reached by a password login.
  await apiCall(page, owner.accessToken, "POST", "/api/TwoFactor/disable", { password: "Changed#Pass2026" });
  return [
    "manager.invited",
    "manager.invite_accepted",
    "manager.role_changed",
    "settings.approval_threshold_changed",
    "members.imported",
    "draft.recipient_added",
    "draft.amount_set",
    "draft.name_set",
    "approval.requested",
    "approval.approved",
    "two_factor.enabled",
    "manager.password_changed",
    "two_factor.disabled",
  ];
}

test("an Owner sees the company's changes, filters them by kind and downloads the same rows as CSV", {
  tag: "@journey",
}, async ({ page, manager }) => {
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

test("every kind of change is in the trail: invitations, roles, the threshold, approvals, two-factor, the password; the CSV holds the same rows", {
  tag: "@journey",
}, async ({ page, manager }) => {
  test.setTimeout(120_000);
  const made = await everyKindOfChange(page, manager);
  // The password change ended the Owner's other sessions, this browser's among them: sign in again.
  await signIn(page, { ...manager, password: "Changed#Pass2026" });
  await visit(page, "/portal/settings/audit");
  const table = page.getByRole("table", { name: /Audit trail/ });
  const listed = await table
    .locator("tbody tr")
    .evaluateAll((trs) => trs.map((tr) => tr.querySelectorAll("td")[2]?.querySelector("code")?.textContent ?? ""));
  for (const action of made) expect(listed, action).toContain(action);
  // Newest first: the last change heads the list.
  expect(listed[0]).toBe("two_factor.disabled");

  const download = page.waitForEvent("download");
  await page.getByRole("link", { name: "Download CSV" }).click();
  const csv = parse(readFileSync(await (await download).path(), "utf8"), { bom: true }) as string[][];
  // The page shows the newest 25; the file holds every row, the page's first.
  expect(csv.slice(1, listed.length + 1).map((r) => r[3])).toEqual(listed);
  for (const action of made)
    expect(
      csv.map((r) => r[3]),
      action,
    ).toContain(action);
});
