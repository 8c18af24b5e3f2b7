// Reward My Team (docs/requirements.md §S2 Reward My Team, §S3 recipient row, §S4 reward flow, §S5 reward
// single add, bulk CSV, amount inputs and reward search, §S8 reward add toasts, §S9 7 a page newest
// first and 10 search results), in the four projects: JavaScript on and off, 360 px and 1280 px.
// Each test gets a fresh onboarded, signed-in manager (the `manager` fixture, fixtures.ts); the
// team members and draft lines a test needs beforehand are created through the API.
//
// The bulk pane is shown at every width (unlike My Team's): a phone can pick a file too.
import type { APIRequestContext, Locator, Page } from "@playwright/test";
import { REWARD_DETAILS } from "../../modules/reward-drafts/schema.ts";
import { addMembers, expect, type Manager, type Member, member, test } from "./fixtures.ts";
import {
  expectNoAxeViolations,
  expectNoHorizontalScroll,
  holdScripts,
  isPhone,
  jsEnabled,
  shoot,
  visit,
  waitForHydration,
} from "./support.ts";

const PAGE = "/portal/reward-my-team";
/** Puts members into the draft through the API (create-reward-search), then sets their amounts. */
async function addToDraft(request: APIRequestContext, manager: Manager, members: Member[], amounts: number[] = []) {
  const { headers } = manager;
  for (const [index, m] of members.entries()) {
    const added = await request.post("/api/RewardMyTeam/create-reward-search", { headers, data: { userId: m.id } });
    expect(added.status(), await added.text()).toBe(200);
    if (amounts[index] !== undefined) {
      const set = await request.put("/api/RewardMyTeam/update-reward", {
        headers,
        data: { userId: m.id, value: amounts[index] },
      });
      expect(set.status(), await set.text()).toBe(200);
    }
  }
}

function table(page: Page): Locator {
  return page.getByRole("table", { name: "Recipients" });
}

function bodyRows(page: Page): Locator {
  return table(page).locator("tbody tr");
}

function totals(page: Page): Locator {
  return page.getByText(/^Total Recipients: /);
}

function toast(page: Page): Locator {
  return page.getByRole("region", { name: /Notifications/ });
}

function amountInput(page: Page, fullName: string): Locator {
  return page.getByRole("textbox", { name: `Amount for ${fullName}`, exact: true });
}

/**
 * Review & Pay: when allowed, a submit button of the amounts form (it saves the amounts as typed,
 * then opens the review); otherwise a control marked aria-disabled that leads nowhere.
 */
async function expectReviewDisabled(page: Page) {
  await expect(page.getByRole("link", { name: "Review & Pay" })).toHaveCount(0);
  await expect(page.getByRole("button", { name: "Review & Pay" })).toHaveAttribute("aria-disabled", "true");
}

async function expectReviewEnabled(page: Page) {
  const review = page.getByRole("button", { name: "Review & Pay" });
  await expect(review).toHaveAttribute("type", "submit");
  await expect(review).not.toHaveAttribute("aria-disabled", "true");
}

/** Sets an amount the way a person would: type, then leave the field (JS) or press Enter (no JS: 'Save amounts'). */
async function setAmount(page: Page, fullName: string, value: string) {
  const input = amountInput(page, fullName);
  await input.fill(value);
  if (jsEnabled()) {
    await input.blur();
  } else {
    const loaded = page.waitForEvent("load");
    await input.press("Enter");
    await loaded;
  }
}

async function openAdd(page: Page): Promise<Locator> {
  await page.getByRole("link", { name: "Add", exact: true }).click();
  const add = page.getByRole("dialog", { name: "Add and Reward Team Members" });
  await expect(add).toBeVisible();
  if (!jsEnabled()) await expect(page).toHaveURL(/dialog=add/);
  return add;
}

test("the empty page: heading, search box, table, totals, Review & Pay disabled, axe", async ({ page, manager: _ }) => {
  await visit(page, PAGE);
  await expect(page).toHaveTitle("Reward My Team");
  await expect(page.getByRole("heading", { level: 1 })).toHaveText("Reward My Team");
  await expect(page.getByRole("heading", { level: 2, name: "Select Recipients to Reward" })).toBeVisible();
  const box = jsEnabled() ? page.getByRole("combobox") : page.getByRole("searchbox");
  await expect(box).toHaveAttribute("placeholder", "Start typing to search & add...");
  await expect(bodyRows(page)).toHaveText(["No data to display"]);
  await expect(page.getByText("1 of 1 page(s)")).toBeVisible();
  await expect(totals(page)).toHaveText("Total Recipients: 0 | Total Reward Dollars (ex GST): $0.00");
  await expectReviewDisabled(page);
  const name = table(page).getByRole("columnheader", { name: "Name" });
  if (isPhone()) await expect(name).toBeHidden();
  else await expect(name).toBeVisible();
  for (const heading of ["Email", "Amount ($)", "Remove"]) {
    await expect(table(page).getByRole("columnheader", { name: heading, exact: true })).toBeVisible();
  }
  await expect(page.getByRole("button", { name: "Apply amount to everyone" })).toBeVisible();
  // A draft at 0 cannot be reviewed: the review page is the payments helper's, the link is ours.
  await shoot(page, "empty");
  if (isPhone()) await expectNoHorizontalScroll(page);
  if (jsEnabled()) await expectNoAxeViolations(page);
});

test("search and add: results by name, added on click or Enter, members in the draft left out", async ({
  page,
  request,
  manager,
}) => {
  const jane = member("Jane", "Citizen");
  const janet = member("Janet", "Jones");
  const bob = member("Bob", "Builder");
  await addMembers(request, manager, [jane, janet, bob]);
  await visit(page, PAGE);

  if (jsEnabled()) {
    const box = page.getByRole("combobox", { name: "Search team members to add" });
    // Blank text searches nothing.
    await box.fill("   ");
    await expect(page.getByRole("listbox")).toBeHidden();
    // Any text that is not blank searches (docs/requirements.md §S5), however short.
    await box.fill("Bo");
    const options = page.getByRole("listbox").getByRole("option");
    await expect(options.filter({ hasText: "Bob Builder" })).toHaveCount(1);
    await box.fill("Jan");
    await expect(options).toHaveCount(2);
    await expect(options.first()).toContainText(/Jane Citizen|Janet Jones/);
    await shoot(page, "search-results");
    await expectNoAxeViolations(page);
    // Enter adds the active (first) result; a click adds another.
    const first = (await options.first().locator("span").first().textContent()) ?? "";
    await box.press("Enter");
    await expect(table(page)).toContainText(first === "Jane Citizen" ? jane.email : janet.email);
    await expect(options).toHaveCount(1);
    await options.first().click();
    await expect(bodyRows(page)).toHaveCount(2);
    await expect(totals(page)).toHaveText("Total Recipients: 2 | Total Reward Dollars (ex GST): $0.00");
    // Both are in the draft now: the same search finds nobody.
    await box.fill("Jane");
    await expect(page.getByText("No team members found who are not already in the list.")).toBeVisible();
    await expect(page).toHaveURL(new RegExp(`${PAGE}$`));
  } else {
    const box = page.getByRole("searchbox", { name: "Search team members to add" });
    // Any text that is not blank searches (docs/requirements.md §S5), however short.
    await box.fill("Bo");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page.getByRole("button", { name: "Add Bob Builder" })).toHaveCount(1);
    await box.fill("Jan");
    await page.getByRole("button", { name: "Search", exact: true }).click();
    await expect(page).toHaveURL(/q=Jan/);
    await expect(page.getByRole("button", { name: /^Add (Jane Citizen|Janet Jones)$/ })).toHaveCount(2);
    await shoot(page, "search-results");
    await page.getByRole("button", { name: "Add Jane Citizen" }).click();
    await expect(table(page)).toContainText(jane.email);
    // The same search comes back, without the person just added.
    await expect(page.getByRole("button", { name: "Add Jane Citizen" })).toHaveCount(0);
    await page.getByRole("button", { name: "Add Janet Jones" }).click();
    await expect(bodyRows(page)).toHaveCount(2);
    await expect(totals(page)).toHaveText("Total Recipients: 2 | Total Reward Dollars (ex GST): $0.00");
    await expect(page.getByText("No team members found who are not already in the list.")).toBeVisible();
  }
  // Newest first: Janet (added last) above Jane, or the other way round with JS: the last added is on top.
  await expect(bodyRows(page)).toHaveCount(2);
  await expectReviewDisabled(page);
  if (isPhone()) await expectNoHorizontalScroll(page);
});

test("typed before the scripts load: the search goes on with the text and the focus", async ({
  page,
  request,
  manager,
}) => {
  const ruth = member("Ruthanne", "Quill");
  await addMembers(request, manager, [ruth, member("Bob", "Builder")]);
  // A slow machine: the page is the server's HTML while its modules are held.
  const release = await holdScripts(page);
  await page.goto(PAGE, { waitUntil: "commit" });
  const formBox = page.getByRole("searchbox", { name: "Search team members to add" });
  await formBox.waitFor();
  await formBox.click();
  await formBox.pressSequentially("Ruth");
  release();
  if (jsEnabled()) {
    // Hydration swaps the form for the combobox: it has the text, the focus and the results.
    const box = page.getByRole("combobox", { name: "Search team members to add" });
    await expect(box).toHaveValue("Ruth");
    await expect(box).toBeFocused();
    const options = page.getByRole("listbox").getByRole("option");
    await expect(options).toHaveCount(1);
    await expect(options.first()).toContainText("Ruthanne Quill");
    // The person types on where they were and adds with Enter.
    await page.keyboard.type("anne");
    await expect(box).toHaveValue("Ruthanne");
    await expect(options).toHaveCount(1);
    await box.press("Enter");
    await expect(table(page)).toContainText(ruth.email);
  } else {
    await formBox.press("Enter");
    await expect(page).toHaveURL(/q=Ruth/);
    await page.getByRole("button", { name: "Add Ruthanne Quill" }).click();
    await expect(table(page)).toContainText(ruth.email);
  }
  await expect(bodyRows(page)).toHaveCount(1);
});

test("amounts: edit, conversions and messages, apply to everyone, totals, Review & Pay", async ({
  page,
  request,
  manager,
}) => {
  const people = [member("Amy", "Adams"), member("Ben", "Brown"), member("Cat", "Chan")];
  await addToDraft(request, manager, await addMembers(request, manager, people));
  await visit(page, PAGE);
  await expect(bodyRows(page)).toHaveCount(3);
  await expect(totals(page)).toHaveText("Total Recipients: 3 | Total Reward Dollars (ex GST): $0.00");
  await expectReviewDisabled(page);

  await setAmount(page, "Amy Adams", "100");
  await expect(totals(page)).toHaveText("Total Recipients: 3 | Total Reward Dollars (ex GST): $100.00");
  await expectReviewEnabled(page);

  // A fraction and a value over 10,000 are refused with their message next to the field.
  await setAmount(page, "Ben Brown", "10.5");
  await expect(page.getByText(REWARD_DETAILS.amountFraction)).toBeVisible();
  await expect(amountInput(page, "Ben Brown")).toHaveAttribute("aria-invalid", "true");
  await setAmount(page, "Ben Brown", "20000");
  await expect(page.getByText(REWARD_DETAILS.amountTooLarge)).toBeVisible();
  await expect(totals(page)).toHaveText("Total Recipients: 3 | Total Reward Dollars (ex GST): $100.00");
  await shoot(page, "amount-message");
  if (jsEnabled()) await expectNoAxeViolations(page);

  // Non-numeric or negative → 0 (docs/requirements.md §S5).
  await setAmount(page, "Ben Brown", "abc");
  await expect(amountInput(page, "Ben Brown")).toHaveValue("0");
  await expect(page.getByText(REWARD_DETAILS.amountTooLarge)).toHaveCount(0);
  await setAmount(page, "Amy Adams", "-5");
  await expect(amountInput(page, "Amy Adams")).toHaveValue("0");
  await expect(totals(page)).toHaveText("Total Recipients: 3 | Total Reward Dollars (ex GST): $0.00");
  await expectReviewDisabled(page);

  // Apply amount to everyone.
  const applyBox = page.getByLabel("Amount for everyone ($)");
  await applyBox.fill("1250");
  await page.getByRole("button", { name: "Apply amount to everyone" }).click();
  await expect(totals(page)).toHaveText("Total Recipients: 3 | Total Reward Dollars (ex GST): $3,750.00");
  for (const name of ["Amy Adams", "Ben Brown", "Cat Chan"]) await expect(amountInput(page, name)).toHaveValue("1250");
  await expectReviewEnabled(page);
  await applyBox.fill("5.5");
  await page.getByRole("button", { name: "Apply amount to everyone" }).click();
  await expect(page.getByText(REWARD_DETAILS.amountFraction)).toBeVisible();
  await expect(totals(page)).toHaveText("Total Recipients: 3 | Total Reward Dollars (ex GST): $3,750.00");
  await shoot(page, "applied");

  // Reload: the amounts were saved on the server.
  await visit(page, PAGE);
  await expect(amountInput(page, "Cat Chan")).toHaveValue("1250");
  await page.getByRole("button", { name: "Review & Pay" }).click();
  await expect(page).toHaveURL(/\/portal\/reward-my-team-review$/);
});

test("Review & Pay carries an amount typed and not saved: the review shows it and its total", async ({
  page,
  request,
  manager,
}) => {
  const people = [member("Gus", "Grant"), member("Hana", "Hill")];
  await addToDraft(request, manager, await addMembers(request, manager, people), [50, 50]);
  await visit(page, PAGE);
  await expect(totals(page)).toHaveText("Total Recipients: 2 | Total Reward Dollars (ex GST): $100.00");
  // Typed, never saved: no Save amounts, no Enter, no leaving the field before the button.
  await amountInput(page, "Gus Grant").fill("60");
  await shoot(page, "typed-not-saved");
  await page.getByRole("button", { name: "Review & Pay" }).click();
  await expect(page).toHaveURL(/\/portal\/reward-my-team-review$/);
  await expect(page.getByText("Gus Grant ($60.00)")).toBeVisible();
  await expect(page.getByText("Hana Hill ($50.00)")).toBeVisible();
  // $110 of Reward Dollars + 10 % fee ($11) + GST on the fee ($1.10) = $122.10.
  await expect(page.getByRole("button", { name: "Pay $122.10 and Send Emails" })).toBeVisible();
  // Without JavaScript the page has one primary action: Save amounts is the secondary one.
  await page.goto(PAGE);
  if (!jsEnabled()) {
    await expect(page.getByRole("button", { name: "Save amounts" })).not.toHaveClass(/bg-brand-700/);
  }
});

test("remove one, then Remove All with its confirmation", async ({ page, request, manager }) => {
  const people = [member("Dan", "Dune"), member("Eve", "Evans")];
  await addToDraft(request, manager, await addMembers(request, manager, people), [10, 20]);
  await visit(page, PAGE);
  await expect(totals(page)).toHaveText("Total Recipients: 2 | Total Reward Dollars (ex GST): $30.00");

  await page.getByRole("button", { name: "Remove Dan Dune" }).click();
  await expect(table(page)).not.toContainText(people[0]?.email ?? "");
  await expect(totals(page)).toHaveText("Total Recipients: 1 | Total Reward Dollars (ex GST): $20.00");
  // The focus does not fall back to the top of the page: it lands on the remaining row's Remove.
  if (jsEnabled()) await expect(page.getByRole("button", { name: "Remove Eve Evans" })).toBeFocused();
  // Enter in an amount field saves the amounts; it never removes anyone (docs/requirements.md §D8).
  await setAmount(page, "Eve Evans", "25");
  await expect(bodyRows(page)).toHaveCount(1);
  await expect(totals(page)).toHaveText("Total Recipients: 1 | Total Reward Dollars (ex GST): $25.00");

  await page.getByRole("link", { name: "Remove All" }).click();
  const confirm = page.getByRole("dialog", { name: "Remove All Recipients" });
  await expect(confirm).toBeVisible();
  if (!jsEnabled()) await expect(page).toHaveURL(/dialog=remove-all/);
  await expect(confirm).toContainText("Remove all 1 recipient from this reward?");
  await shoot(page, "remove-all");
  if (jsEnabled()) await expectNoAxeViolations(page);
  await confirm.getByRole("button", { name: "Remove All", exact: true }).click();
  await expect(confirm).toBeHidden();
  await expect(bodyRows(page)).toHaveText(["No data to display"]);
  await expect(totals(page)).toHaveText("Total Recipients: 0 | Total Reward Dollars (ex GST): $0.00");
  await expectReviewDisabled(page);
});

test("paging: 7 a page, newest first, Previous and Next", async ({ page, request, manager }) => {
  const people = Array.from({ length: 9 }, (_, i) => member(`P${i + 1}`, "Person"));
  await addToDraft(
    request,
    manager,
    await addMembers(request, manager, people),
    people.map((_, i) => i + 1),
  );
  await visit(page, PAGE);
  await expect(page.getByText("1 of 2 page(s)")).toBeVisible();
  await expect(bodyRows(page)).toHaveCount(7);
  // Newest first: P9 (added last) leads.
  await expect(bodyRows(page).first()).toContainText(people[8]?.email ?? "");
  await expect(totals(page)).toHaveText("Total Recipients: 9 | Total Reward Dollars (ex GST): $45.00");
  await page.getByRole("link", { name: "Next" }).click();
  await expect(page).toHaveURL(/\?page=2$/);
  await expect(page.getByText("2 of 2 page(s)")).toBeVisible();
  await expect(bodyRows(page)).toHaveCount(2);
  await expect(bodyRows(page).last()).toContainText(people[0]?.email ?? "");
  await expect(page.getByRole("link", { name: "Next" })).toHaveCount(0);
  // Edits on page 2 stay on page 2.
  await setAmount(page, "P1 Person", "101");
  await expect(totals(page)).toHaveText("Total Recipients: 9 | Total Reward Dollars (ex GST): $145.00");
  await expect(page.getByText("2 of 2 page(s)")).toBeVisible();
  // A refused amount on page 2 is shown on page 2, next to its field.
  await setAmount(page, "P2 Person", "10.5");
  await expect(page.getByText(REWARD_DETAILS.amountFraction)).toBeVisible();
  await expect(page.getByText("2 of 2 page(s)")).toBeVisible();
  await expect(amountInput(page, "P2 Person")).toHaveValue("10.5");
  await shoot(page, "page-2");
  await page.getByRole("link", { name: "Previous" }).click();
  await expect(page.getByText("1 of 2 page(s)")).toBeVisible();
  if (isPhone()) await expectNoHorizontalScroll(page);
});

test("Add dialog, single form: messages, the server's detail, then the toast and the row", async ({
  page,
  manager,
}) => {
  await visit(page, PAGE);
  let add = await openAdd(page);
  await expect(add.getByRole("heading", { name: "Bulk Upload" })).toBeVisible();
  await expect(add.getByRole("heading", { name: "Add an Individual" })).toBeVisible();
  await shoot(page, "add-dialog");
  if (jsEnabled()) await expectNoAxeViolations(page);

  await add.getByLabel("First Name", { exact: true }).fill("   ");
  await add.getByLabel("Last Name", { exact: true }).fill("Lee");
  await add.getByLabel("Email", { exact: true }).fill("ann@example");
  await add.getByRole("button", { name: "Add Recipient" }).click();
  await expect(add.getByText("First Name is required.")).toBeVisible();
  await expect(add.getByText("The email format is incorrect.")).toBeVisible();

  // The program manager's own email: the API refuses it; its detail shows in red above the form.
  await add.getByLabel("First Name", { exact: true }).fill("Penny");
  await add.getByLabel("Email", { exact: true }).fill(manager.email);
  await add.getByRole("button", { name: "Add Recipient" }).click();
  await expect(add.getByRole("alert")).toContainText(REWARD_DETAILS.managerEmail);
  await shoot(page, "single-detail");

  const ann = member("Ann", "Lee");
  add = page.getByRole("dialog", { name: "Add and Reward Team Members" });
  await add.getByLabel("First Name", { exact: true }).fill(ann.firstName);
  await add.getByLabel("Last Name", { exact: true }).fill(ann.lastName);
  await add.getByLabel("Email", { exact: true }).fill(ann.email);
  await add.getByLabel("Reward Amount", { exact: true }).fill("40");
  await add.getByRole("button", { name: "Add Recipient" }).click();
  await expect(toast(page)).toContainText("Ann successfully added");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(table(page)).toContainText(ann.email);
  await expect(amountInput(page, "Ann Lee")).toHaveValue("40");
  await expect(totals(page)).toHaveText("Total Recipients: 1 | Total Reward Dollars (ex GST): $40.00");

  // An empty amount is 0.
  const bo = member("Bo", "Ng");
  add = await openAdd(page);
  await add.getByLabel("First Name", { exact: true }).fill(bo.firstName);
  await add.getByLabel("Last Name", { exact: true }).fill(bo.lastName);
  await add.getByLabel("Email", { exact: true }).fill(bo.email);
  await add.getByRole("button", { name: "Add Recipient" }).click();
  await expect(toast(page)).toContainText("Bo successfully added");
  await expect(amountInput(page, "Bo Ng")).toHaveValue("0");
  await expect(totals(page)).toHaveText("Total Recipients: 2 | Total Reward Dollars (ex GST): $40.00");
});

test("Add dialog, bulk CSV: type, headings and row messages, then Save and the toast", async ({ page, manager: _ }) => {
  await visit(page, PAGE);
  const add = await openAdd(page);
  const fileInput = add.getByLabel("CSV file", { exact: true });

  const template = add.getByRole("link", { name: "Download the CSV template" });
  const res = await page.request.get((await template.getAttribute("href")) ?? "");
  expect(res.status()).toBe(200);
  expect(res.headers()["content-type"]).toMatch(/^text\/csv/);
  expect(res.headers()["content-disposition"]).toMatch(/^attachment; filename=".+\.csv"$/);
  expect(await res.text()).toBe("First Name,Last Name,Email Address,Reward Amount\r\n");

  async function pick(name: string, text: string, mimeType = "text/csv") {
    await fileInput.setInputFiles({ name, mimeType, buffer: Buffer.from(text) });
    if (!jsEnabled()) await add.getByRole("button", { name: "Check file" }).click();
  }
  const dialog = () => page.getByRole("dialog", { name: "Add and Reward Team Members" });

  await pick("notes.txt", "hello", "text/plain");
  await expect(dialog().getByRole("alert")).toContainText("Invalid file type; please upload a CSV file.");
  await expect(dialog().getByRole("button", { name: "Save" })).toHaveCount(0);

  await pick("missing.csv", "First Name,Last Name,Email Address\r\nA,B,a@example.com\r\n");
  await expect(dialog().getByRole("alert")).toContainText(
    'Reward Amount: Column heading is missing or incorrect; please update to "Reward Amount".',
  );

  const a = member("Cara", "Diaz");
  const b = member("Eli", "Fox");
  await pick(
    "rows.csv",
    `First Name,Last Name,Email Address,Reward Amount\r\n${a.firstName},${a.lastName},${a.email},50\r\n,${b.lastName},not-an-email,12.5\r\n`,
  );
  const alert = dialog().getByRole("alert");
  await expect(alert).toContainText("Row 2: First Name is missing or incorrect");
  await expect(alert).toContainText("Row 2: Email is missing or incorrect");
  await expect(alert).toContainText("Row 2: Wrong Reward Amount");
  await expect(dialog().getByRole("button", { name: "Save" })).toHaveCount(0);
  await shoot(page, "bulk-errors");

  await pick(
    "good.csv",
    `\uFEFFFirst Name,Last Name,Email Address,Reward Amount\r\n${a.firstName},${a.lastName},${a.email},50\r\n${b.firstName},${b.lastName},${b.email},"1,000"\r\n`,
  );
  await expect(dialog().getByText("2 recipients ready to add, $1,050.00 in total.")).toBeVisible();
  await shoot(page, "bulk-preview");
  if (jsEnabled()) await expectNoAxeViolations(page);
  await dialog().getByRole("button", { name: "Save" }).click();
  await expect(toast(page)).toContainText("Successfully added");
  await expect(page.getByRole("dialog")).toHaveCount(0);
  await expect(bodyRows(page)).toHaveCount(2);
  await expect(amountInput(page, "Eli Fox")).toHaveValue("1000");
  await expect(totals(page)).toHaveText("Total Recipients: 2 | Total Reward Dollars (ex GST): $1,050.00");
  await expectReviewEnabled(page);
  if (jsEnabled()) await waitForHydration(page);
});
