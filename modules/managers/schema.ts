// A company's managers (ADR 0022 §1, §3–§5): the payloads of the Managers calls and their forms,
// the answers' shapes and the messages. Shared by the provider API, the route actions and the
// browser (ADR 0017). Pure code only.
import * as z from "zod/mini";
import { emailField, firstNameField, lastNameField } from "../../core/fields.ts";
import { managerBudgetFormSchema } from "../budgets/schema.ts";
import {
  confirmField,
  type ManagerRole,
  matchConfirmation,
  newPasswordField,
  newPasswordFormField,
  SIGN_UP_CONFIRM_LABEL,
} from "../identity/schema.ts";

export type { ManagerRole };

export const MANAGER_ROLES = ["owner", "manager"] as const satisfies readonly ManagerRole[];

/** How the roles read on the pages and in the emails. */
export const ROLE_LABELS: Record<ManagerRole, string> = { owner: "Owner", manager: "Manager" };

/** ADR 0022 §5: an invitation link is valid for 7 days. */
export const INVITE_TTL_DAYS = 7;

export const MANAGER_MESSAGES = {
  roleRequired: "Role must be Owner or Manager.",
  inviteInvalid: "This invitation link is not valid. Please ask an Owner of your company for a new one.",
  inviteExpired: "This invitation has expired. Please ask an Owner of your company for a new one.",
  inviteUsed: "This invitation has already been used. Please log in.",
  inviteRevoked: "This invitation was withdrawn. Please ask an Owner of your company for a new one.",
  /** The inviter was removed, or is no longer an Owner (ADR 0022 amendment; docs/requirements.md §D7). */
  inviterGone:
    "The person who invited you is no longer an Owner of your company, so this invitation cannot be used. Please ask an Owner of your company for a new one.",
  inviteNotPending: "This invitation is no longer pending.",
  lastOwner: "Your company needs at least one Owner. Make another manager an Owner first.",
  managerNotFound: "This manager was not found.",
  detailsFirst: "Add your company details before inviting colleagues.",
} as const;

const roleField = z.enum(MANAGER_ROLES, { error: MANAGER_MESSAGES.roleRequired });

/** The emailed link's token (the page's address carries it). */
export const inviteTokenField = z
  .string({ error: MANAGER_MESSAGES.inviteInvalid })
  .check(z.trim(), z.minLength(1, MANAGER_MESSAGES.inviteInvalid), z.maxLength(200, MANAGER_MESSAGES.inviteInvalid));

/** POST /api/Managers/invites: an Owner invites a colleague by email with a role. */
export const inviteManagerSchema = z.object({ email: emailField, role: roleField });
export type InviteManagerRequest = z.input<typeof inviteManagerSchema>;

/** PUT /api/Managers/{id}/role. */
export const changeManagerRoleSchema = z.object({ role: roleField });

/** POST /api/ManagerInvites/preview: what the accept page shows before the form. */
export const invitePreviewSchema = z.object({ token: inviteTokenField });

/**
 * POST /api/ManagerInvites/accept: the invitee's name and password with sign-up's rules (docs/requirements.md §S5),
 * and the confirmation, checked here too so the API holds the same contract as the form.
 */
export const acceptInviteSchema = z.pipe(
  z
    .object({
      token: inviteTokenField,
      firstName: firstNameField,
      lastName: lastNameField,
      password: newPasswordField,
      confirmPassword: confirmField(SIGN_UP_CONFIRM_LABEL),
    })
    .check(matchConfirmation),
  z.transform(({ confirmPassword: _confirm, ...request }) => request),
);
export type AcceptInviteRequest = z.input<typeof acceptInviteSchema>;

/** The accept page's form (the token is read from the page's address): sign-up's fields and checks. */
export const acceptInviteFormSchema = z
  .object({
    firstName: firstNameField,
    lastName: lastNameField,
    password: newPasswordFormField,
    confirmPassword: confirmField(SIGN_UP_CONFIRM_LABEL),
  })
  .check(matchConfirmation);

/** The Managers page's forms, told apart by `intent`. */
export const managersFormSchema = z.discriminatedUnion("intent", [
  z.object({ intent: z.literal("invite"), email: emailField, role: roleField }),
  z.object({
    intent: z.literal("change-role"),
    managerId: z.coerce.number().check(z.int(), z.positive()),
    role: roleField,
  }),
  z.object({ intent: z.literal("remove"), managerId: z.coerce.number().check(z.int(), z.positive()) }),
  z.object({ intent: z.literal("revoke-invite"), inviteId: z.coerce.number().check(z.int(), z.positive()) }),
  managerBudgetFormSchema,
]);

export interface ManagerView {
  id: number;
  firstName: string;
  lastName: string;
  fullName: string;
  email: string;
  managerRole: ManagerRole;
  /** The caller's own row. */
  isYou: boolean;
  createdAt: string;
  /** The monthly budget in cents (ADR 0034); null: unlimited. Applies while the role is Manager. */
  monthlyBudgetCents: number | null;
}

export interface PendingInviteView {
  id: number;
  email: string;
  managerRole: ManagerRole;
  invitedByName: string;
  createdAt: string;
  expiresAt: string;
}

export interface ManagersList {
  managers: ManagerView[];
  invites: PendingInviteView[];
}

export interface InvitePreview {
  companyName: string;
  inviterName: string;
  email: string;
  managerRole: ManagerRole;
  /**
   * The company signs its managers in through its identity provider (ADR 0046): the
   * invitation is accepted by signing in there, not with a password.
   */
  signInWithProvider: boolean;
}
