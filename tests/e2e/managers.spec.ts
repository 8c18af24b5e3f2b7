// A company's managers (ADR 0022 §1, §3–§5), in the four projects (JavaScript on and off,
// 360 px and 1280 px): an Owner invites a colleague from Settings › Managers; the invitee opens
// the emailed link, chooses a name and password, lands in the portal of the already onboarded
// company and rewards the team; the Owner changes the invitee's role and then removes them, and
// the removed manager's next request lands on the login page. Also: a used link's message, and a
// Manager's view of the Owner-only page.
import type { APIRequestContext, Browser, Locator, Page } from "@playwright/test";
import { expect, test } from "./fixtures.ts";
import {
  expectNoAxeViolations,
  expectNoHorizontalScroll,
  isPhone,
  jsEnabled,
  shoot,
  uniqueEmail,
  visit,
} from "./support.ts";

const PAGE = "/portal/settings/managers";
const NEW_PASSWORD = "Welcome#2025";
function toast(page: Page): Locator {
  return page.getByRole("region", { name: /Notifications/ });
}

/** The newest invitation link emailed to `email` (the dev mailbox), as the path it opens. */
async function inviteLink(request: APIRequestContext, email: string): Promise<string> {
  let path = "";
  await expect
    .poll(
      async () => {
        const html = await (await request.get("/dev/mailbox")).text();
        const message = html.split("<article").find((part) => part.includes(email));
        path = message?.match(/\/corporate\/accept-invite\?token=[A-Za-z0-9_%-]+/)?.[0] ?? "";
        return path;
      },
      { message: `invitation email to ${email}`, timeout: 15_000 },
    )
    .not.toBe("");
  return path;
}

/** A second browser (its own cookies) in this project's viewport and JavaScript setting. */
async function otherBrowser(browser: Browser, baseURL: string | undefined): Promise<Page> {
  const context = await browser.newContext({
    baseURL,
    javaScriptEnabled: jsEnabled(),
    viewport: isPhone() ? { width: 360, height: 800 } : { width: 1280, height: 900 },
  });
  return context.newPage();
}

function managerRow(page: Page, email: string): Locator {
  return page.getByRole("listitem").filter({ hasText: email });
}

test("an Owner invites; the invitee accepts from the email and rewards the team; the Owner changes the role, then removes them and their session ends", {
  tag: "@journey",
}, async ({ page, browser, baseURL, request, manager: owner }) => {
  // Two people's journeys in one test, with two axe checks: more than the default budget.
  test.setTimeout(120_000);
  // The Owner: Settings in the header, the Managers tab.
  await visit(page, "/portal/dashboard");
  if (!isPhone()) {
    await page.getByRole("navigation", { name: "Portal" }).getByRole("link", { name: "Settings" }).click();
    await expect(page).toHaveURL(/\/portal\/settings$/);
  }
  await visit(page, PAGE);
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Managers");
  const tabs = page.getByRole("navigation", { name: "Settings" });
  for (const tab of ["Profile", "Security", "Company", "Approvals", "Managers", "Audit", "API keys"]) {
    await expect(tabs.getByRole("link", { name: tab, exact: true })).toBeVisible();
  }
  await expect(managerRow(page, owner.email)).toContainText("(you)");
  await expect(managerRow(page, owner.email)).toContainText("The last Owner");

  // A bad address is refused with its message; then the invitation goes out.
  const invitee = uniqueEmail("invitee");
  const form = page.getByRole("form", { name: "Invite a Manager" });
  await form.getByLabel("Email").fill("not-an-email");
  await form.getByRole("button", { name: "Send Invitation" }).click();
  await expect(form.getByText("The email format is incorrect.")).toBeVisible();
  await form.getByLabel("Email").fill(owner.email);
  await form.getByRole("button", { name: "Send Invitation" }).click();
  await expect(page.getByText("Email is already used, please use another one.")).toBeVisible();
  await page.getByRole("form", { name: "Invite a Manager" }).getByLabel("Email").fill(invitee);
  await page.getByRole("form", { name: "Invite a Manager" }).getByLabel("Role").selectOption("manager");
  await page.getByRole("form", { name: "Invite a Manager" }).getByRole("button", { name: "Send Invitation" }).click();
  await expect(toast(page)).toContainText("Invitation sent");
  const pending = page.getByRole("region", { name: "Pending Invitations" });
  await expect(pending.getByText(invitee)).toBeVisible();
  await shoot(page, "managers-owner");
  if (isPhone()) await expectNoHorizontalScroll(page);
  if (jsEnabled()) await expectNoAxeViolations(page);

  // The invitee, in a browser of their own, opens the emailed link.
  const link = await inviteLink(request, invitee);
  const guest = await otherBrowser(browser, baseURL);
  await visit(guest, link);
  await expect(guest.getByRole("heading", { name: `Join ${owner.companyName}` })).toBeVisible();
  await expect(guest.getByText(`${owner.firstName} ${owner.lastName} invited ${invitee}`)).toBeVisible();
  await shoot(guest, "accept-invite");
  if (isPhone()) await expectNoHorizontalScroll(guest);
  if (jsEnabled()) await expectNoAxeViolations(guest);
  await guest.getByLabel("First Name").fill("Ivy");
  await guest.getByLabel("Last Name").fill("Invitee");
  await guest.getByLabel("Password", { exact: true }).fill(NEW_PASSWORD);
  await guest.getByLabel("Confirm Password").fill(NEW_PASSWORD);
  await guest.getByRole("button", { name: "Accept Invitation" }).click();
  await expect(guest).toHaveURL(/\/portal\/dashboard$/);
  await expect(guest.getByText("Welcome Ivy")).toBeVisible();

  // The link is single use.
  await visit(guest, link);
  await expect(guest.getByText("This invitation has already been used. Please log in.")).toBeVisible();

  // The new Manager rewards the team: a new member with an amount, straight into Reward My Team.
  await visit(guest, "/portal/reward-my-team");
  await guest.getByRole("link", { name: "Add", exact: true }).click();
  const add = guest.getByRole("dialog", { name: "Add and Reward Team Members" });
  await expect(add).toBeVisible();
  const memberEmail = uniqueEmail("rewarded");
  await add.getByLabel("First Name", { exact: true }).fill("Rex");
  await add.getByLabel("Last Name", { exact: true }).fill("Rewarded");
  await add.getByLabel("Email", { exact: true }).fill(memberEmail);
  await add.getByLabel("Reward Amount", { exact: true }).fill("45");
  await add.getByRole("button", { name: "Add Recipient" }).click();
  await expect(toast(guest)).toContainText("Rex successfully added");
  await expect(guest.getByText(/^Total Recipients: /)).toHaveText(
    "Total Recipients: 1 | Total Reward Dollars (ex GST): $45.00",
  );

  // A Manager's Settings: only their own tabs; the Managers page says it is an Owner's.
  await visit(guest, PAGE);
  const guestTabs = guest.getByRole("navigation", { name: "Settings" });
  await expect(guestTabs.getByRole("link", { name: "Profile", exact: true })).toBeVisible();
  await expect(guestTabs.getByRole("link", { name: "Managers", exact: true })).toHaveCount(0);
  await expect(guest.getByText("Only an Owner of your company can do this.")).toBeVisible();

  // The Owner sees the new Manager, makes them an Owner, then removes them.
  await visit(page, PAGE);
  const row = managerRow(page, invitee);
  await expect(row).toContainText("Ivy Invitee");
  await expect(row).toContainText("Manager");
  await row.getByLabel("Role of Ivy Invitee", { exact: true }).selectOption("owner");
  await row.getByRole("button", { name: "Change Role of Ivy Invitee" }).click();
  await expect(toast(page)).toContainText("Role changed to Owner");
  await expect(managerRow(page, invitee)).toContainText("Owner");
  // The new Owner's next page shows the Owner's tabs.
  await visit(guest, "/portal/settings");
  await expect(
    guest.getByRole("navigation", { name: "Settings" }).getByRole("link", { name: "Managers" }),
  ).toBeVisible();

  await managerRow(page, invitee).getByRole("link", { name: "Remove Ivy Invitee" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove Ivy Invitee?" });
  await expect(confirm).toBeVisible();
  if (!jsEnabled()) await expect(page).toHaveURL(/dialog=remove-manager&manager=\d+/);
  await shoot(page, "remove-confirmation");
  await confirm.getByRole("button", { name: "Remove Manager" }).click();
  await expect(toast(page)).toContainText("Manager removed");
  await expect(managerRow(page, invitee)).toHaveCount(0);

  // The removed manager's next request: the login page.
  await visit(guest, "/portal/reward-my-team");
  await expect(guest).toHaveURL(/\/corporate\/login$/);
  await guest.context().close();
});

test("a withdrawn invitation's link says so, and an unknown one too", { tag: "@journey" }, async ({
  page,
  request,
  manager: _,
}) => {
  await visit(page, PAGE);
  const invitee = uniqueEmail("withdrawn");
  const form = page.getByRole("form", { name: "Invite a Manager" });
  await form.getByLabel("Email").fill(invitee);
  await form.getByRole("button", { name: "Send Invitation" }).click();
  await expect(toast(page)).toContainText("Invitation sent");
  const link = await inviteLink(request, invitee);
  await page
    .getByRole("region", { name: "Pending Invitations" })
    .getByRole("button", { name: `Withdraw the invitation to ${invitee}` })
    .click();
  await expect(toast(page)).toContainText("Invitation withdrawn");
  await expect(page.getByRole("region", { name: "Pending Invitations" })).toContainText(
    "No invitations are waiting to be accepted.",
  );

  const res = await page.request.get(link);
  expect(res.status()).toBe(410);
  await visit(page, link);
  await expect(page.getByText("This invitation was withdrawn.", { exact: false })).toBeVisible();
  await visit(page, "/corporate/accept-invite?token=nope");
  await expect(page.getByText("This invitation link is not valid.", { exact: false })).toBeVisible();
  await shoot(page, "accept-invalid");
});
