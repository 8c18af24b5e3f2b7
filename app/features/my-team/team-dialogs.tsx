// The My Team dialogs (docs/requirements.md §S2 My Team, §S4 team list, §S8): Add New (bulk and individual panes),
// Update and Remove. Each is reachable by URL (?dialog=add, ?dialog=edit&member=<id>,
// ?dialog=remove&member=<id>) and drawn by UrlDialog (app/ui/dialog.tsx):
// - without JavaScript the openers are links to those addresses and the forms post to them;
// - with JavaScript an opener opens its dialog in place (no page load; Headless UI traps the
//   focus and returns it on close), the forms post through fetchers, and the list reloads when
//   a dialog closes. A success redirects to the list, which closes the dialog.

import { getFormProps } from "@conform-to/react";
import type { ReactNode } from "react";
import { useFetcher, useLocation } from "react-router";
import { parseId } from "../../../core/fields.ts";
import { AUSTRALIAN_STATES, MONTH_NAMES, STATE_NAMES } from "../../../core/member-dates.ts";
import { type TeamMember, teamMemberSchema } from "../../../modules/team/schema.ts";
import { type FormReply, formConstraint, hasFieldErrors } from "../../lib/forms.ts";
import { useHydrated } from "../../lib/use-hydrated.ts";
import { useSchemaForm } from "../../lib/use-schema-form.ts";
import { UrlDialog, type UrlDialogControl, type UrlDialogOptions } from "../../ui/dialog.tsx";
import { FormAlert, HiddenFormInputs, SelectField, SubmitButton, TextField } from "../../ui/form-fields.tsx";
import { formReplyOf, listHref, REMOVE_WARNING, TEAM_INTENT, type TeamActionData } from "./team.ts";

/**
 * useUrlDialog's options for the three dialogs (team.ts DIALOG_PARAMS): Update and Remove are
 * about a member (?member=<id>), a checked file waits in Add New (?upload=<id>); closing one
 * about a member still listed gives the focus to the row's edit button (Remove is opened from
 * Update, whose opener is that button), and the list reloads.
 */
export const TEAM_DIALOG_OPTIONS: UrlDialogOptions = {
  itemParam: "member",
  moreParams: ["upload"],
  returnFocusTo: (item) => editButtonId(item),
  revalidateOnClose: true,
};

export interface TeamDialogControls {
  add: UrlDialogControl;
  edit: UrlDialogControl;
  remove: UrlDialogControl;
}

/** The member id of the open dialog's address (?member=<id>), if it is one. */
function memberIdOf(dialogs: TeamDialogControls): number | undefined {
  const item = dialogs.edit.item ?? dialogs.remove.item;
  return parseId(item) ?? undefined;
}

export function editButtonId(memberId: number | string) {
  return `team-edit-${memberId}`;
}

/** The posted form's action: the current address, so a failure re-renders the same dialog (no JavaScript). */
export function useTeamFormAction() {
  const location = useLocation();
  return `${location.pathname}${location.search}`;
}

const secondaryButtonClass =
  "inline-flex min-h-11 items-center justify-center rounded-md border border-slate-400 bg-white px-6 py-2 font-semibold text-slate-800 hover:bg-slate-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";
const destructiveButtonClass =
  "inline-flex min-h-11 items-center justify-center gap-2 rounded-md bg-red-700 px-6 py-2 font-semibold text-white shadow-sm hover:bg-red-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700 disabled:cursor-not-allowed disabled:bg-slate-400 disabled:text-slate-900";

export function TeamDialogs({
  dialogs,
  members,
  actionData,
  bulkPane,
}: {
  dialogs: TeamDialogControls;
  members: TeamMember[];
  actionData?: TeamActionData;
  bulkPane: ReactNode;
}) {
  const memberId = memberIdOf(dialogs);
  const member = memberId === undefined ? undefined : members.find((m) => m.id === memberId);
  // Without JavaScript the action's answer belongs to the one dialog the address opened.
  const reply = formReplyOf(actionData);
  const fullName = member ? `${member.firstName} ${member.lastName}` : "";

  return (
    <>
      <UrlDialog control={dialogs.add} title="Add New">
        <div className="grid gap-8 md:grid-cols-2">
          {bulkPane}
          <section aria-labelledby="team-add-single-heading">
            <h3 id="team-add-single-heading" className="text-lg font-bold text-slate-900">
              Add an Individual Team Member
            </h3>
            <TeamMemberForm
              id="team-add-form"
              intent={TEAM_INTENT.createUser}
              submitLabel="Add Team Member"
              reply={dialogs.add.open ? reply : undefined}
            />
          </section>
        </div>
      </UrlDialog>
      <UrlDialog control={dialogs.edit} title={member ? `Update ${fullName}` : "Update Team Member"}>
        {member ? (
          <TeamMemberForm
            id="team-update-form"
            intent={TEAM_INTENT.updateUser}
            submitLabel="Save"
            member={member}
            reply={dialogs.edit.open ? reply : undefined}
            footer={
              <a
                {...dialogs.remove.openerFor(member.id)}
                className="inline-flex min-h-11 items-center font-semibold text-red-700 underline underline-offset-2 hover:text-red-900 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-red-700"
              >
                Remove {fullName}
              </a>
            }
          />
        ) : (
          <MemberGone />
        )}
      </UrlDialog>
      <UrlDialog control={dialogs.remove} title={member ? `Remove ${fullName}` : "Remove Team Member"}>
        {member ? <RemoveForm member={member} onCancel={dialogs.remove.close} /> : <MemberGone />}
      </UrlDialog>
    </>
  );
}

function MemberGone() {
  return (
    <p className="text-slate-700">This team member is not on this page any more. Close this dialog to see the list.</p>
  );
}

const constraint = formConstraint(teamMemberSchema);

const DAY_OPTIONS = Array.from({ length: 31 }, (_, i) => ({ value: String(i + 1), label: String(i + 1) }));
const MONTH_OPTIONS = MONTH_NAMES.map((name, i) => ({ value: String(i + 1), label: name }));
const STATE_OPTIONS = AUSTRALIAN_STATES.map((state) => ({ value: state, label: `${STATE_NAMES[state]} (${state})` }));

/** The form's starting values: a member's as saved (a detail not given is blank). */
function memberDefaults(member: TeamMember) {
  return {
    firstName: member.firstName,
    lastName: member.lastName,
    email: member.email,
    birthDay: member.birthDay === null ? "" : String(member.birthDay),
    birthMonth: member.birthMonth === null ? "" : String(member.birthMonth),
    startDate: member.startDate ?? "",
    state: member.state ?? "",
  };
}

/** Add (docs/requirements.md §S5 add team member) or Update: First Name, Last Name, Email. */
function TeamMemberForm({
  id,
  intent,
  submitLabel,
  member,
  reply,
  footer,
}: {
  id: string;
  intent: string;
  submitLabel: string;
  member?: TeamMember;
  reply?: FormReply;
  footer?: ReactNode;
}) {
  const fetcher = useFetcher<TeamActionData>();
  const action = useTeamFormAction();
  const current = formReplyOf(fetcher.data) ?? reply;
  const [form, fields] = useSchemaForm(teamMemberSchema, {
    id,
    lastResult: current?.result,
    defaultValue: member ? memberDefaults(member) : undefined,
    constraint,
    defaultNoValidate: false,
  });
  const busy = fetcher.state !== "idle";

  return (
    <fetcher.Form method="post" action={action} {...getFormProps(form)} className="mt-4 space-y-4">
      <HiddenFormInputs intent={intent} />
      {member ? <input type="hidden" name="id" value={member.id} /> : null}
      <FormAlert messages={form.errors ?? []} focusKey={current} focus={!hasFieldErrors(current?.result)} />
      <TextField field={fields.firstName} label="First Name" autoComplete="off" />
      <TextField field={fields.lastName} label="Last Name" autoComplete="off" />
      <TextField field={fields.email} label="Email" type="email" autoComplete="off" />
      <fieldset className="space-y-3 rounded-md border border-slate-300 p-3">
        <legend className="px-1 text-sm font-semibold text-slate-800">
          For birthday and work-anniversary rewards (optional)
        </legend>
        <div className="grid grid-cols-2 gap-3">
          <SelectField field={fields.birthDay} label="Birthday: day" options={DAY_OPTIONS} placeholder="None" />
          <SelectField field={fields.birthMonth} label="Birthday: month" options={MONTH_OPTIONS} placeholder="None" />
        </div>
        <TextField field={fields.startDate} label="Start date" type="date" autoComplete="off" />
        <SelectField field={fields.state} label="State or territory" options={STATE_OPTIONS} placeholder="None" />
      </fieldset>
      <div className="flex flex-wrap items-center justify-between gap-3">
        <SubmitButton busy={busy} className="w-full sm:w-auto">
          {submitLabel}
        </SubmitButton>
        {footer}
      </div>
    </fetcher.Form>
  );
}

/**
 * docs/requirements.md §S2 Remove dialog: the warning, Remove (destructive) and Cancel. The form has no text
 * field, so Enter cannot submit it by accident (docs/requirements.md §D8).
 */
function RemoveForm({ member, onCancel }: { member: TeamMember; onCancel: () => void }) {
  const fetcher = useFetcher();
  const action = useTeamFormAction();
  const hydrated = useHydrated();
  const busy = fetcher.state !== "idle";
  const location = useLocation();
  const back = listHref(location.search);

  return (
    <fetcher.Form method="post" action={action} className="space-y-6">
      <HiddenFormInputs intent={TEAM_INTENT.deleteUser} />
      <input type="hidden" name="id" value={member.id} />
      <input type="hidden" name="firstName" value={member.firstName} />
      <p className="rounded-md border border-amber-400 bg-amber-50 px-4 py-3 text-amber-950">{REMOVE_WARNING}</p>
      <div className="flex flex-col-reverse gap-3 sm:flex-row sm:justify-end">
        {hydrated ? (
          <button type="button" onClick={onCancel} className={secondaryButtonClass}>
            Cancel
          </button>
        ) : (
          <a href={back} className={secondaryButtonClass}>
            Cancel
          </a>
        )}
        <button type="submit" disabled={busy} aria-busy={busy || undefined} className={destructiveButtonClass}>
          {busy ? "Please wait" : "Remove"}
        </button>
      </div>
    </fetcher.Form>
  );
}
