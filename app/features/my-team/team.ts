// Browser-safe pieces of the My Team page (docs/requirements.md §S2 My Team, §S5 add/update team member): the
// action intents, what the action answers, and the page's addresses. The member form's schema
// is modules/team/schema.ts teamMemberSchema (the conventions of forms.ts).

import { href } from "react-router";
import type { TeamCsvRow } from "../../../core/csv.ts";
import type { FormReply } from "../../lib/forms.ts";

export const MY_TEAM_PATH = href("/portal/my-team");
export const TEAM_TEMPLATE_PATH = href("/portal/my-team/template.csv");

/** The posts the page's one action tells apart by their `intent` field. */
export const TEAM_INTENT = {
  // The API route each one calls names it (ADR 0032): POST /Users/create-user, PUT and DELETE /Users/{id}.
  createUser: "create-user",
  updateUser: "update-user",
  deleteUser: "delete-user",
  /** Without JavaScript: check a CSV file on the server and keep its rows for the preview. */
  checkUpload: "check-upload",
  /** Without JavaScript: save the rows kept by check-upload. */
  saveUpload: "save-upload",
  /** With JavaScript: the file was checked in the browser; the server checks it again and saves it. */
  saveFile: "save-file",
} as const;

export type TeamDialogName = "add" | "edit" | "remove";
/** The search parameters that belong to a dialog (dropped from the list's own address). */
export const DIALOG_PARAMS = ["dialog", "member", "upload"] as const;

/** The list's address (search and page kept) without any dialog parameter. */
export function listHref(search: string | URLSearchParams): string {
  const params = new URLSearchParams(search);
  for (const name of DIALOG_PARAMS) params.delete(name);
  const rest = params.toString();
  return `${MY_TEAM_PATH}${rest ? `?${rest}` : ""}`;
}

/** The address of a dialog over the current list. */
export function dialogHref(search: string | URLSearchParams, name: TeamDialogName, memberId?: number): string {
  const params = new URLSearchParams(search);
  for (const param of DIALOG_PARAMS) params.delete(param);
  params.set("dialog", name);
  if (memberId !== undefined) params.set("member", String(memberId));
  return `${MY_TEAM_PATH}?${params}`;
}

/** The address of page `page` of the list for the search text `search`. */
export function pageHref(search: string, page: number): string {
  const params = new URLSearchParams();
  if (search) params.set("search", search);
  if (page > 1) params.set("page", String(page));
  const query = params.toString();
  return `${MY_TEAM_PATH}${query ? `?${query}` : ""}`;
}

/** What an upload post answers when it does not redirect: the messages to list. */
export interface UploadReply {
  upload: { errors: string[]; fileName?: string };
}

export type TeamActionData = FormReply | UploadReply;

export function isUploadReply(value: unknown): value is UploadReply {
  return typeof value === "object" && value !== null && "upload" in value;
}

export function formReplyOf(value: unknown): FormReply | undefined {
  return typeof value === "object" && value !== null && "result" in value ? (value as FormReply) : undefined;
}

/** A few rows shown before Save, and how many there are. */
export interface UploadPreview {
  fileName: string;
  count: number;
  sample: TeamPreviewRow[];
}

/** What the upload's preview shows of a row: who is added (the optional details are not listed). */
export type TeamPreviewRow = Pick<TeamCsvRow, "firstName" | "lastName" | "email">;

export const PREVIEW_ROWS = 5;

export function successfullyAddedMessage(count: number) {
  return `Successfully added: ${count} user(s)`;
}

export function duplicatesMessage(count: number) {
  return `Duplicates (not added): ${count} user(s)`;
}

export const REMOVE_WARNING =
  "Removing this team member will inactivate their access to the product, forfeiting any unspent Reward Dollars.";
export const REMOVE_FAILED_MESSAGE = "Sorry, we were unable to delete the user.";
