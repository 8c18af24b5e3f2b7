// Settings › Managers (ADR 0022 §1, §3–§5), an Owner's page: the company's managers with their
// role (changed in place) and Remove behind a confirmation (?dialog=remove-manager&manager=<id>,
// a page of its own without JavaScript, a modal dialog with it), the invite form (email and role:
// an emailed single-use link valid 7 days), and the pending invitations with Withdraw.
// One action, told apart by `intent` (modules/managers/schema.ts managersFormSchema); every change goes
// through the API (modules/managers/api.server.ts), which refuses a Manager (403) whatever this page shows:
// a Manager opening it gets the "Only an Owner…" message instead of the lists.
// Each manager's row also has their monthly budget (ADR 0034): set or cleared in place (intent
// `budget`, PUT /api/Managers/{id}/budget), with what they used and have left this Sydney month
// (GET /api/Budgets).

import { getFormProps, getInputProps, getSelectProps } from "@conform-to/react";
import { Form, href } from "react-router";
import { formatDollars } from "../../../core/money.ts";
import { DETAILS } from "../../../core/public-forms.ts";
import type { BudgetsOverview, ManagerBudgetUse } from "../../../modules/budgets/schema.ts";
import {
  MANAGER_ROLES,
  type ManagersList,
  type ManagerView,
  managersFormSchema,
  ROLE_LABELS,
} from "../../../modules/managers/schema.ts";
import { services } from "../../context.ts";
import { readPostedForm, replyFailure, replyInvalid, unknownIntent } from "../../lib/forms.server.ts";
import { type FormReply, formConstraint } from "../../lib/forms.ts";
import { inApiWords } from "../../lib/refusals.ts";
import { redirectWithToast } from "../../lib/toast.server.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { UrlDialog, type UrlDialogControl, type UrlDialogLinkProps, useUrlDialog } from "../../ui/dialog.tsx";
import { FieldError, FormAlert, HiddenFormInputs, SubmitButton, useFormSubmit } from "../../ui/form-fields.tsx";
import { portalUser } from "../portal/portal.server.ts";
import { type PortalHandle, portalMeta } from "../portal/portal-pages.ts";
import type { Route } from "./+types/portal.settings.managers";
import { budgetRequest, budgetSavedToast } from "./budget-form.server.ts";
import { BudgetForm } from "./budget-form.tsx";
import { card, controlClass, dangerButton, labelClass, sectionHeading } from "./settings-styles.ts";

const TITLE = "Managers";
export const handle = { title: TITLE } satisfies PortalHandle;
export const meta: Route.MetaFunction = portalMeta(TITLE);

const PAGE = href("/portal/settings/managers");
const REMOVE_DIALOG = "remove-manager";

/** API answers shown word for word on this page's forms (the rest get the generic message). */
const SHOWN = inApiWords("email-in-use", "owner-only", "last-owner", "manager-not-found", "invite-not-pending");

export async function loader({ context }: Route.LoaderArgs) {
  const { api: client } = portalUser(context);
  const [result, budgets] = await Promise.all([
    client.call((api) => api.Managers.$get()),
    client.call((api) => api.Budgets.$get()),
  ]);
  const budgetOf = budgets.ok ? (budgets.data as BudgetsOverview).managers : [];
  if (result.ok) return { ownerOnly: false as const, list: result.data as ManagersList, budgets: budgetOf };
  if (result.status !== 403) {
    services(context).logger.warn({ status: result.status, detail: result.detail }, "managers list fetch failed");
  }
  // A Manager (403) sees the Owner-only message; a failed fetch, empty lists.
  return {
    ownerOnly: result.status === 403,
    list: { managers: [], invites: [] } as ManagersList,
    budgets: [] as ManagerBudgetUse[],
  };
}

export async function action({ context, request }: Route.ActionArgs) {
  const { api: client } = portalUser(context);
  const { submission } = (await readPostedForm(context, request)).parse(managersFormSchema);
  if (submission.status !== "success") return replyInvalid(submission);
  const value = submission.value;
  switch (value.intent) {
    case "invite": {
      const result = await client.call((api) =>
        api.Managers.invites.$post({ json: { email: value.email, role: value.role } }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, {
        type: "success",
        title: "Invitation sent",
        description: `We emailed ${result.data.email} a link to join as ${ROLE_LABELS[value.role]}. It is valid for 7 days.`,
      });
    }
    case "change-role": {
      const result = await client.call((api) =>
        api.Managers[":id"].role.$put({ param: { id: String(value.managerId) }, json: { role: value.role } }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, { type: "success", title: `Role changed to ${ROLE_LABELS[value.role]}` });
    }
    case "remove": {
      const result = await client.call((api) =>
        api.Managers[":id"].$delete({ param: { id: String(value.managerId) } }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, { type: "success", title: "Manager removed" });
    }
    case "budget": {
      const result = await client.call((api) =>
        api.Managers[":id"].budget.$put({
          param: { id: String(value.managerId) },
          json: budgetRequest(value.budgetDollars),
        }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, budgetSavedToast(result.data.monthlyBudgetCents));
    }
    case "revoke-invite": {
      const result = await client.call((api) =>
        api.Managers.invites[":id"].$delete({ param: { id: String(value.inviteId) } }),
      );
      if (!result.ok) return replyFailure(submission, result, { shown: SHOWN });
      throw redirectWithToast(context, PAGE, { type: "success", title: "Invitation withdrawn" });
    }
    default:
      return unknownIntent();
  }
}

const secondaryButton =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-slate-400 bg-white px-4 font-semibold text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700 disabled:cursor-not-allowed disabled:opacity-50";

const dateText = (iso: string) =>
  new Date(iso).toLocaleDateString("en-AU", { day: "numeric", month: "short", year: "numeric", timeZone: "UTC" });

export default function ManagersSettings({ loaderData, actionData }: Route.ComponentProps) {
  const removeDialog = useUrlDialog(REMOVE_DIALOG, { itemParam: "manager" });
  if (loaderData.ownerOnly) {
    return (
      <div className={card} role="status">
        <h2 className={sectionHeading}>Only an Owner can manage managers</h2>
        <p className="mt-2 text-slate-700">
          {DETAILS.ownerOnly} Ask an Owner of your company to invite a colleague, change a role or remove a manager.
        </p>
      </div>
    );
  }
  const { managers, invites } = loaderData.list;
  const reply = actionData as FormReply | undefined;
  const removing = managers.find((m) => String(m.id) === removeDialog.item);
  const ownerCount = managers.filter((m) => m.managerRole === "owner").length;

  return (
    <div className="space-y-8">
      <FormAlert messages={reply?.result?.error?.[""] ?? []} focusKey={reply} focus />

      <section aria-labelledby="managers-heading" className={card}>
        <h2 id="managers-heading" className={sectionHeading}>
          Managers
        </h2>
        <p className="mt-1 text-slate-700">
          Owners can do everything. Managers can manage the team and rewards. Your company always keeps at least one
          Owner.
        </p>
        <ul className="mt-4 divide-y divide-slate-200">
          {managers.map((m) => (
            <ManagerRow
              key={m.id}
              manager={m}
              budget={loaderData.budgets.find((b) => b.userId === m.id)}
              reply={reply}
              lastOwner={m.managerRole === "owner" && ownerCount === 1}
              removeOpener={removeDialog.openerFor(m.id)}
            />
          ))}
        </ul>
      </section>

      <section aria-labelledby="invite-heading" className={card}>
        <h2 id="invite-heading" className={sectionHeading}>
          Invite a Manager
        </h2>
        <p className="mt-1 text-slate-700">
          We email them a link to set their name and password. The link works once and expires in 7 days.
        </p>
        <InviteForm reply={reply} />
      </section>

      <section aria-labelledby="invites-heading" className={card}>
        <h2 id="invites-heading" className={sectionHeading}>
          Pending Invitations
        </h2>
        {invites.length === 0 ? (
          <p className="mt-2 text-slate-700">No invitations are waiting to be accepted.</p>
        ) : (
          <ul className="mt-4 divide-y divide-slate-200">
            {invites.map((invite) => (
              <li key={invite.id} className="flex flex-col gap-3 py-3 sm:flex-row sm:items-center sm:justify-between">
                <div className="min-w-0">
                  <p className="break-words font-semibold text-slate-900">{invite.email}</p>
                  <p className="text-sm text-slate-600">
                    {ROLE_LABELS[invite.managerRole]} · invited by {invite.invitedByName} · expires{" "}
                    {dateText(invite.expiresAt)}
                  </p>
                </div>
                <Form method="post" action={PAGE} preventScrollReset>
                  <HiddenFormInputs intent="revoke-invite" />
                  <input type="hidden" name="inviteId" value={invite.id} />
                  <button
                    type="submit"
                    className={secondaryButton}
                    aria-label={`Withdraw the invitation to ${invite.email}`}
                  >
                    Withdraw
                  </button>
                </Form>
              </li>
            ))}
          </ul>
        )}
      </section>

      <UrlDialog control={removeDialog} title={removing ? `Remove ${removing.fullName}?` : "Remove Manager"}>
        {removing ? (
          <RemoveConfirmation manager={removing} control={removeDialog} />
        ) : (
          <p className="text-slate-700">This manager was not found. They may have been removed already.</p>
        )}
      </UrlDialog>
    </div>
  );
}

function ManagerRow({
  manager,
  budget,
  reply,
  lastOwner,
  removeOpener,
}: {
  manager: ManagerView;
  budget: ManagerBudgetUse | undefined;
  reply: FormReply | undefined;
  lastOwner: boolean;
  removeOpener: UrlDialogLinkProps;
}) {
  const name = manager.isYou ? `${manager.fullName} (you)` : manager.fullName;
  return (
    <li className="flex flex-col gap-3 py-4 lg:flex-row lg:flex-wrap lg:items-center lg:justify-between">
      <div className="min-w-0">
        <p className="break-words font-semibold text-slate-900">{name}</p>
        <p className="break-words text-sm text-slate-600">
          {manager.email} · {ROLE_LABELS[manager.managerRole]}
        </p>
        <p className="text-sm text-slate-700" data-testid={`budget-use-${manager.id}`}>
          {budgetText(manager, budget)}
        </p>
      </div>
      <BudgetForm
        page={PAGE}
        idName="managerId"
        id={manager.id}
        whose={manager.fullName}
        budgetCents={manager.monthlyBudgetCents}
        reply={reply}
      />
      <div className="flex flex-wrap items-end gap-2">
        <Form method="post" action={PAGE} preventScrollReset className="flex items-end gap-2">
          <HiddenFormInputs intent="change-role" />
          <input type="hidden" name="managerId" value={manager.id} />
          <div>
            <label htmlFor={`role-${manager.id}`} className="sr-only">
              Role of {manager.fullName}
            </label>
            <select
              id={`role-${manager.id}`}
              name="role"
              defaultValue={manager.managerRole}
              className={`${controlClass} w-auto disabled:cursor-not-allowed disabled:opacity-50`}
              disabled={lastOwner}
              aria-describedby={lastOwner ? `last-owner-${manager.id}` : undefined}
            >
              {MANAGER_ROLES.map((role) => (
                <option key={role} value={role}>
                  {ROLE_LABELS[role]}
                </option>
              ))}
            </select>
          </div>
          <button
            type="submit"
            className={secondaryButton}
            disabled={lastOwner}
            aria-label={`Change Role of ${manager.fullName}`}
          >
            Change Role
          </button>
        </Form>
        {lastOwner ? (
          <p id={`last-owner-${manager.id}`} className="w-full text-sm text-slate-600 lg:w-auto">
            The last Owner
          </p>
        ) : (
          <a
            href={removeOpener.href}
            onClick={removeOpener.onClick}
            onPointerEnter={removeOpener.onPointerEnter}
            onFocus={removeOpener.onFocus}
            className={dangerButton}
            aria-label={`Remove ${manager.fullName}`}
          >
            Remove
          </a>
        )}
      </div>
    </li>
  );
}

/** What the row says of the budget this month: used and left, or unlimited; an Owner's is not applied. */
function budgetText(manager: ManagerView, budget: ManagerBudgetUse | undefined): string {
  const used = budget ? `${formatDollars(budget.usedCents)} used this month` : "";
  if (manager.monthlyBudgetCents === null) return `No monthly budget (unlimited)${used ? ` · ${used}` : ""}`;
  const left = budget?.leftCents ?? manager.monthlyBudgetCents;
  const held = manager.managerRole === "owner" ? " · not applied while an Owner" : "";
  return `Monthly budget ${formatDollars(manager.monthlyBudgetCents)} · ${used || "nothing used this month"} · ${formatDollars(left)} left${held}`;
}

function RemoveConfirmation({ manager, control }: { manager: ManagerView; control: UrlDialogControl }) {
  return (
    <div className="space-y-4">
      {/* A long address wraps inside the dialog at 360 px instead of running past its edge. */}
      <p className="text-slate-700 [overflow-wrap:anywhere]">
        {manager.isYou
          ? "You will be signed out at once and will no longer be able to sign in to this company's portal."
          : `${manager.fullName} (${manager.email}) will be signed out at once everywhere and will no longer be able to sign in. Rewards they sent stay in your history.`}
      </p>
      <Form method="post" action={PAGE} className="flex flex-wrap gap-2">
        <HiddenFormInputs intent="remove" />
        <input type="hidden" name="managerId" value={manager.id} />
        <button
          type="submit"
          className="inline-flex min-h-11 items-center justify-center rounded-md bg-red-700 px-6 font-semibold text-white hover:bg-red-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700"
        >
          Remove Manager
        </button>
        <a
          href={control.closeHref}
          onClick={(event) => {
            // With JavaScript Cancel closes the dialog in place (without, the link goes back to the list).
            event.preventDefault();
            control.close();
          }}
          className={secondaryButton}
        >
          Cancel
        </a>
      </Form>
    </div>
  );
}

const inviteConstraint = formConstraint(managersFormSchema);

function InviteForm({ reply }: { reply?: FormReply }) {
  const { onSubmit, busy } = useFormSubmit(PAGE);
  const isInvite = (reply?.result?.initialValue as { intent?: string } | undefined)?.intent === "invite";
  const [form, fields] = useSchemaForm(managersFormSchema, {
    id: "invite-manager-form",
    lastResult: isInvite ? reply?.result : undefined,
    constraint: inviteConstraint,
    onSubmit,
  });
  const { key: emailKey, ...emailProps } = getInputProps(fields.email, { type: "email" });
  const { key: roleKey, ...roleProps } = getSelectProps(fields.role);
  return (
    <Form
      method="post"
      action={PAGE}
      preventScrollReset
      {...getFormProps(form)}
      className="mt-4 space-y-4"
      aria-label="Invite a Manager"
    >
      <HiddenFormInputs intent="invite" />
      <div className="grid gap-4 sm:grid-cols-[minmax(0,2fr)_minmax(0,1fr)]">
        <div>
          <label htmlFor={fields.email.id} className={labelClass}>
            Email
          </label>
          <input key={emailKey} {...emailProps} autoComplete="off" className={controlClass} />
          <FieldError id={fields.email.errorId} errors={fields.email.errors} />
        </div>
        <div>
          <label htmlFor={fields.role.id} className={labelClass}>
            Role
          </label>
          <select
            key={roleKey}
            {...roleProps}
            defaultValue={fields.role.initialValue ?? "manager"}
            className={controlClass}
          >
            {MANAGER_ROLES.map((role) => (
              <option key={role} value={role}>
                {ROLE_LABELS[role]}
              </option>
            ))}
          </select>
          <FieldError id={fields.role.errorId} errors={fields.role.errors} />
        </div>
      </div>
      <SubmitButton busy={busy} className="w-full sm:w-auto">
        Send Invitation
      </SubmitButton>
    </Form>
  );
}
