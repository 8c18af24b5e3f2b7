// /help (docs/requirements.md §S2): the FAQ accordion and the public Contact Us form, with JavaScript on and off.
import type { Locator, Page } from "@playwright/test";
import { expect, formWith, submitButton, test, uniqueEmail, uniqueToken, visit, watchPosts } from "./support.ts";

/**
 * The FAQ items, whether built on <details>/<summary> (which works without JavaScript) or on
 * disclosure buttons with aria-expanded.
 */
async function faq(page: Page) {
  const main = page.getByRole("main");
  const details = main.locator("details:has(> summary)");
  if ((await details.count()) > 0) {
    return {
      count: () => details.count(),
      toggle: (i: number): Locator => details.nth(i).locator(":scope > summary"),
      expectOpen: async (i: number, open: boolean) => {
        if (open) await expect(details.nth(i), `FAQ ${i + 1} open`).toHaveAttribute("open");
        else await expect(details.nth(i), `FAQ ${i + 1} closed`).not.toHaveAttribute("open");
      },
      answer: (i: number): Locator => details.nth(i).locator(":scope > :not(summary)").first(),
    };
  }
  const buttons = main.locator("button[aria-expanded]");
  return {
    count: () => buttons.count(),
    toggle: (i: number): Locator => buttons.nth(i),
    expectOpen: async (i: number, open: boolean) => {
      await expect(buttons.nth(i), `FAQ ${i + 1} ${open ? "open" : "closed"}`).toHaveAttribute(
        "aria-expanded",
        String(open),
      );
    },
    answer: async (i: number): Promise<Locator> => {
      const id = await buttons.nth(i).getAttribute("aria-controls");
      return page.locator(`[id="${id}"]`);
    },
  };
}

test.describe("FAQ accordion", () => {
  test("holds 10 questions, opens one at a time and collapses", async ({ page }) => {
    await visit(page, "/help");
    const items = await faq(page);
    expect(await items.count()).toBe(10);

    await items.toggle(1).click();
    await items.expectOpen(1, true);
    await expect(await items.answer(1)).toBeVisible();

    await items.toggle(4).click();
    await items.expectOpen(4, true);
    await items.expectOpen(1, false);
    await expect(await items.answer(1)).toBeHidden();

    for (let i = 0; i < 10; i++) if (i !== 4) await items.expectOpen(i, false);

    await items.toggle(4).click();
    await items.expectOpen(4, false);
    await expect(await items.answer(4)).toBeHidden();
  });

  test("the answers link to the terms and privacy pages", async ({ page }) => {
    await visit(page, "/help");
    const main = page.getByRole("main");
    await expect(main.locator('a[href="/policies/terms-and-conditions"]').first()).toBeAttached();
    await expect(main.locator('a[href="/policies/privacy-policy"]').first()).toBeAttached();
  });
});

test.describe("Contact Us form", () => {
  test("fields: First Name, Last Name, Email, Message (up to 256 characters)", async ({ page }) => {
    await visit(page, "/help");
    const form = formWith(page, "Message");
    for (const label of ["First Name", "Last Name", "Email", "Message"]) {
      await expect(form.getByLabel(label, { exact: true }), label).toBeVisible();
    }
    await expect(form.getByLabel("Email", { exact: true })).toHaveAttribute("type", "email");
    await expect(form.getByLabel("Message", { exact: true })).toHaveAttribute("maxlength", "256");
  });

  test("submit shows the thank-you state and the email reaches the outbox (/dev/mailbox)", { tag: "@journey" }, async ({
    page,
  }) => {
    const lastName = `Contact${uniqueToken()}`;
    await visit(page, "/help");
    const form = formWith(page, "Message");
    await form.getByLabel("First Name", { exact: true }).fill("Casey");
    await form.getByLabel("Last Name", { exact: true }).fill(lastName);
    await form.getByLabel("Email", { exact: true }).fill(uniqueEmail("contact"));
    await form.getByLabel("Message", { exact: true }).fill("Where is my gift card? It has been three days.");
    await submitButton(form).click();

    await expect(page.getByText(/thank you/i).first()).toBeVisible();
    await expect(page.getByText("An error occurred while submitting the form. Please try again.")).toHaveCount(0);

    // The request goes to SUPPORT_EMAIL through the outbox; the dev mailbox lists it.
    await expect(async () => {
      await page.goto("/dev/mailbox");
      await expect(page.getByText(new RegExp(lastName)).first()).toBeVisible({ timeout: 1_000 });
    }).toPass({ timeout: 10_000 });
  });

  test("blank fields are refused before anything is posted", async ({ page }) => {
    await visit(page, "/help");
    const form = formWith(page, "Message");
    const posts = watchPosts(page);
    await submitButton(form).click();
    // Either the browser's required check or the form's own validation stops the post.
    await expect(
      page
        .getByText("First Name is required.")
        .or(form.getByLabel("First Name", { exact: true }).and(page.locator(":invalid")))
        .first(),
    ).toBeVisible();
    await page.waitForTimeout(500);
    expect(posts, "POST requests sent").toEqual([]);
    await expect(page.getByText(/thank you/i)).toHaveCount(0);
  });

  test("whitespace-only fields get SPEC's required messages from the server", async ({ page }) => {
    await visit(page, "/help");
    const form = formWith(page, "Message");
    // A space passes the browser's `required` check; the server trims and refuses it.
    await form.getByLabel("First Name", { exact: true }).fill(" ");
    await form.getByLabel("Last Name", { exact: true }).fill(" ");
    await form.getByLabel("Email", { exact: true }).fill(uniqueEmail("contact-blank"));
    await form.getByLabel("Message", { exact: true }).fill("   ");
    await submitButton(form).click();

    for (const message of ["First Name is required.", "Last Name is required.", "Message is required."]) {
      await expect(page.getByText(message).first(), message).toBeVisible();
    }
    await expect(page.getByText(/thank you/i)).toHaveCount(0);
  });
});
