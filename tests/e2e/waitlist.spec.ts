// /not-ready-yet (docs/requirements.md §S2, §S4, §S5, §S8): the waitlist form, with JavaScript on and off.
import type { Page } from "@playwright/test";
import { E2E_URLS } from "./env.ts";
import { expect, formWith, jsEnabled, submitButton, test, uniqueEmail, visit, watchPosts } from "./support.ts";

function waitlistForm(page: Page) {
  return formWith(page, "Company Name");
}

async function fillWaitlist(page: Page, fields: { first: string; last: string; email: string; company: string }) {
  const form = waitlistForm(page);
  await form.getByLabel("First Name", { exact: true }).fill(fields.first);
  await form.getByLabel("Last Name", { exact: true }).fill(fields.last);
  await form.getByLabel("Email", { exact: true }).fill(fields.email);
  await form.getByLabel("Company Name", { exact: true }).fill(fields.company);
}

async function acceptTerms(page: Page) {
  await waitlistForm(page).getByRole("checkbox").check();
}

async function join(page: Page, email: string) {
  await visit(page, "/not-ready-yet");
  await fillWaitlist(page, { first: "Wendy", last: "Waiter", email, company: "Acme Pty Ltd" });
  await acceptTerms(page);
  await submitButton(waitlistForm(page)).click();
}

test("fields: First Name, Last Name, Email, Company Name and the terms checkbox", async ({ page }) => {
  await visit(page, "/not-ready-yet");
  const form = waitlistForm(page);
  for (const label of ["First Name", "Last Name", "Email", "Company Name"]) {
    await expect(form.getByLabel(label, { exact: true }), label).toBeVisible();
  }
  await expect(form.getByLabel("Email", { exact: true })).toHaveAttribute("type", "email");
  await expect(form.getByRole("checkbox")).toHaveCount(1);
  await expect(form.getByRole("checkbox")).not.toBeChecked();
});

test("submit shows Thank You! with the link to the company profile", async ({ page }) => {
  await join(page, uniqueEmail("waitlist"));
  await expect(page.getByText("Thank You!")).toBeVisible();
  await expect(page.locator(`a[href="${E2E_URLS.companyProfile}"]`).first()).toBeVisible();
});

test("the same email again shows 'Email is already in the waitlist.'", async ({ page }) => {
  const email = uniqueEmail("waitlist-dup");
  await join(page, email);
  await expect(page.getByText("Thank You!")).toBeVisible();

  await join(page, email);
  await expect(page.getByText("Email is already in the waitlist.")).toBeVisible();
  await expect(page.getByText("Thank You!")).toHaveCount(0);
});

test("the terms checkbox is required", async ({ page }) => {
  await visit(page, "/not-ready-yet");
  await fillWaitlist(page, { first: "Tom", last: "Terms", email: uniqueEmail("waitlist-terms"), company: "Acme" });
  const submit = submitButton(waitlistForm(page));
  if (jsEnabled()) {
    // docs/requirements.md §S4: submit disabled until the terms checkbox is ticked.
    await expect(submit).toBeDisabled();
    await acceptTerms(page);
    await expect(submit).toBeEnabled();
  } else {
    const posts = watchPosts(page);
    await submit.click();
    await page.waitForTimeout(500);
    expect(posts, "POST requests sent without the terms accepted").toEqual([]);
    await expect(page.getByText("Thank You!")).toHaveCount(0);
  }
});

test("blank fields are refused before anything is posted", async ({ page }) => {
  await visit(page, "/not-ready-yet");
  await acceptTerms(page);
  const form = waitlistForm(page);
  const posts = watchPosts(page);
  await submitButton(form).click();
  await expect(
    page
      .getByText("First Name is required.")
      .or(form.getByLabel("First Name", { exact: true }).and(page.locator(":invalid")))
      .first(),
  ).toBeVisible();
  await page.waitForTimeout(500);
  expect(posts, "POST requests sent").toEqual([]);
  await expect(page.getByText("Thank You!")).toHaveCount(0);
});

test("whitespace-only fields get SPEC's required messages from the server", async ({ page }) => {
  await visit(page, "/not-ready-yet");
  await fillWaitlist(page, { first: " ", last: " ", email: uniqueEmail("waitlist-blank"), company: " " });
  await acceptTerms(page);
  await submitButton(waitlistForm(page)).click();
  for (const message of ["First Name is required.", "Last Name is required.", "Company Name is required."]) {
    await expect(page.getByText(message).first(), message).toBeVisible();
  }
  await expect(page.getByText("Thank You!")).toHaveCount(0);
});

test("Terms and Privacy: dialogs with JavaScript, links to the policy pages without", async ({ page }) => {
  await visit(page, "/not-ready-yet");
  const form = waitlistForm(page);
  const opener = (name: RegExp) => form.getByRole("link", { name }).or(form.getByRole("button", { name })).first();
  if (jsEnabled()) {
    for (const title of ["Terms and Conditions", "Privacy Policy"]) {
      await opener(new RegExp(title, "i")).click();
      const dialog = page.getByRole("dialog", { name: title });
      await expect(dialog).toBeVisible();
      await page.keyboard.press("Escape");
      await expect(dialog).toBeHidden();
    }
  } else {
    await expect(opener(/terms and conditions/i)).toHaveAttribute("href", "/policies/terms-and-conditions");
    await expect(opener(/privacy policy/i)).toHaveAttribute("href", "/policies/privacy-policy");
  }
});
