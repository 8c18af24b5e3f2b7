// The fetcher posts of Reward My Team (JavaScript on): every post carries the CSRF token (the
// forms' hidden input does the same without JavaScript) and via=fetcher, so the action answers
// data rather than a redirect.
import { useCallback } from "react";
import type { FetcherWithComponents } from "react-router";
import { useCsrfToken } from "../../lib/use-csrf-token.ts";
import { REWARD_MY_TEAM_PATH, VIA_FETCHER } from "./reward-draft.ts";

const CSRF_FIELD = "csrf";

export function useDraftPost() {
  const token = useCsrfToken();
  return useCallback(
    <T>(fetcher: FetcherWithComponents<T>, fields: Record<string, string | Blob>) => {
      const body = new FormData();
      for (const [name, value] of Object.entries(fields)) body.set(name, value);
      if (token) body.set(CSRF_FIELD, token);
      body.set(VIA_FETCHER.name, VIA_FETCHER.value);
      const hasFile = Object.values(fields).some((value) => typeof value !== "string");
      return fetcher.submit(body, {
        method: "post",
        action: REWARD_MY_TEAM_PATH,
        encType: hasFile ? "multipart/form-data" : "application/x-www-form-urlencoded",
      });
    },
    [token],
  );
}
