// Helpers of the end-to-end tests that need a second manager in the Owner's company (approvals,
// budgets): made the honest way, invited through the API and accepted with the emailed token.
import type { APIRequestContext } from "@playwright/test";
import { expect, type Manager, PASSWORD } from "./fixtures.ts";
import { emailsTo } from "./mail.ts";
import { uniqueEmail } from "./support.ts";

/** Polls until a message to `address` has a subject matching `subject`. */
export async function emailMatching(address: string, subject: RegExp) {
  let text = "";
  await expect
    .poll(
      async () => {
        const found = (await emailsTo(address)).find((m) => subject.test(m.subject));
        text = found?.text ?? "";
        return Boolean(found);
      },
      { message: `email ${subject} to ${address}`, timeout: 20_000 },
    )
    .toBe(true);
  return text;
}

/** A Manager (managerRole 'manager') of the Owner's company: invited and accepted through the API. */
export async function inviteManager(request: APIRequestContext, owner: Manager): Promise<Manager> {
  const email = uniqueEmail("team-manager");
  const invited = await request.post("/api/Managers/invites", {
    headers: owner.headers,
    data: { email, role: "manager" },
  });
  expect(invited.status(), await invited.text()).toBe(201);
  const text = await emailMatching(email, /invited you to/);
  const token = /accept-invite\?token=([\w%.~-]+)/.exec(text)?.[1];
  expect(token, text).toBeTruthy();
  const accepted = await request.post("/api/ManagerInvites/accept", {
    data: {
      token: decodeURIComponent(token ?? ""),
      firstName: "Max",
      lastName: "Manager",
      password: PASSWORD,
      confirmPassword: PASSWORD,
    },
  });
  expect(accepted.status(), await accepted.text()).toBe(200);
  const { accessToken } = (await accepted.json()) as { accessToken: string };
  const headers = { authorization: `Bearer ${accessToken}` };
  await request.post("/api/Identity/onboarding-video-watched", { headers });
  const me = (await (await request.get("/api/Users/MyDetails", { headers })).json()) as {
    id: number;
    companyId: number;
    managerRole: string;
  };
  expect(me.managerRole).toBe("manager");
  return {
    ...owner,
    email,
    firstName: "Max",
    lastName: "Manager",
    userId: me.id,
    companyId: me.companyId,
    accessToken,
    headers,
  };
}
