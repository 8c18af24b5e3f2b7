// Browser-safe pieces of the Reward My Team page (docs/requirements.md §S2 Reward My Team, §S3 recipient row, §S5
// reward single add and amount inputs, §S9 page size 7): the page's address and intents, the
// shape its loader answers and the totals line. The single-add form's schema is modules/reward-drafts/schema.ts
// newRewardUserSchema (the conventions of forms.ts).
import type { SubmissionResult } from "@conform-to/react";
import { href } from "react-router";
import { formatDollars } from "../../../core/money.ts";

export const REWARD_MY_TEAM_PATH = href("/portal/reward-my-team");
export const REWARD_SEARCH_PATH = href("/portal/reward-my-team/search");
export const REWARD_TEMPLATE_PATH = href("/portal/reward-my-team/template.csv");
export const REWARD_REVIEW_PATH = href("/portal/reward-my-team-review");

/** The dialogs reachable by URL (?dialog=…). */
export const ADD_DIALOG = "add";
export const REMOVE_ALL_DIALOG = "remove-all";

/** What each post to the page's action asks for (the field `intent`). */
export const INTENTS = {
  addFromSearch: "add-from-search",
  saveAmount: "save-amount",
  saveAmounts: "save-amounts",
  applyAll: "apply-all",
  remove: "remove",
  removeAll: "remove-all",
  addSingle: "add-single",
  bulkPreview: "bulk-preview",
  bulkSave: "bulk-save",
  bulkDiscard: "bulk-discard",
} as const;
export type Intent = (typeof INTENTS)[keyof typeof INTENTS];

/**
 * Review & Pay is a submit button of the amounts form (name and value below): the amounts as
 * typed are saved, then the review opens, so an amount typed and not yet saved is never left
 * behind (without JavaScript there is no save on leaving a field; with it, a save may still be
 * on its way when the button is pressed).
 */
export const THEN_REVIEW = { name: "then", value: "review" } as const;

/**
 * Posts sent by a fetcher carry `via=fetcher`: the action answers data for them (the page stays,
 * the loaders revalidate); a plain form post (no JavaScript) is answered with a redirect.
 */
export const VIA_FETCHER = { name: "via", value: "fetcher" } as const;

/** A recipient row as the page shows it (docs/requirements.md §S3: reward null is shown as 0). */
export interface RewardDraftRow {
  userId: number;
  fullName: string;
  email: string;
  reward: number;
}

/** One page of the draft, newest first, with the whole draft's totals. */
export interface RewardDraftView {
  rows: RewardDraftRow[];
  pageNumber: number;
  totalPages: number;
  totalRecipients: number;
  totalRewardsCents: number;
}

/** A result of the user search (docs/requirements.md §S3: shown as first and last name). */
export interface RewardSearchResult {
  id: number;
  firstName: string;
  lastName: string;
  email: string;
}

/** What the user search answers (the loader without JavaScript, the search route with it). */
export interface RewardSearchAnswer {
  q: string;
  results: RewardSearchResult[];
}

export const NO_MATCHES_TEXT = "No team members found who are not already in the list.";

/** docs/requirements.md §S2: exactly 'Total Recipients: N | Total Reward Dollars (ex GST): $X'. */
export function totalsLine(view: Pick<RewardDraftView, "totalRecipients" | "totalRewardsCents">): string {
  return `Total Recipients: ${view.totalRecipients.toLocaleString("en-AU")} | Total Reward Dollars (ex GST): ${formatDollars(view.totalRewardsCents)}`;
}

/** docs/requirements.md §S2, §S4: Review & Pay only with at least one recipient and a total above 0. */
export function canReview(view: Pick<RewardDraftView, "totalRecipients" | "totalRewardsCents">): boolean {
  return view.totalRecipients > 0 && view.totalRewardsCents > 0;
}

/** The page's address for a page number (page 1 has no parameter). */
export function pageHref(pageNumber: number, search = ""): string {
  const params = new URLSearchParams(search);
  params.delete("dialog");
  params.delete("upload");
  if (pageNumber > 1) params.set("page", String(pageNumber));
  else params.delete("page");
  const query = params.toString();
  return `${REWARD_MY_TEAM_PATH}${query ? `?${query}` : ""}`;
}

/** The accessible name of a row's amount input (docs/requirements.md §D8). */
export function amountLabel(fullName: string): string {
  return `Amount for ${fullName}`;
}

/** docs/requirements.md §S8 toasts of the Add dialog. */
export const BULK_ADDED_TOAST = "Successfully added";
export function singleAddedToast(firstName: string): string {
  return `${firstName} successfully added`;
}

// ─── What the page's action answers (fetchers with JavaScript; the page itself without) ───

/** A post that needs nothing shown besides the refreshed page. */
export type DoneReply = { ok: true };

/** Apply amount to everyone: a refused value keeps what was typed and says why. */
export type ApplyAllReply = DoneReply | { ok: false; value: string; message: string };

/** The Add dialog's single form: conform's reply on failure (the server's detail in red). */
export type SingleAddReply = DoneReply | { ok: false; result: SubmissionResult<string[]> };

/** The Add dialog's bulk pane: the file's or the server's messages. */
export type BulkReply = DoneReply | { ok: false; errors: string[]; fileName?: string };

/** A pending upload (no JavaScript) waiting for its Save: what the preview shows. */
export interface PendingRewardUpload {
  id: string;
  fileName: string;
  count: number;
  totalRewardsCents: number;
  /** The first rows, for the preview table. */
  sample: Array<{ firstName: string; lastName: string; email: string; value: number }>;
}

export const UPLOAD_PREVIEW_ROWS = 5;
