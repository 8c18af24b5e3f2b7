// What one web page request may share between the calls it makes to the in-process API: the
// portal layout and the page's own loader each call the API with the same bearer token, in
// parallel, and each call would otherwise look the token up again. Only GET and HEAD page
// requests get a scope (an action may revoke the token before its page's loaders run).
import { AsyncLocalStorage } from "node:async_hooks";

const scope = new AsyncLocalStorage<Map<string, Promise<unknown>>>();

/** Runs `fn` (a page request) in a fresh scope. */
export function inWebRequestScope<T>(fn: () => T): T {
  return scope.run(new Map(), fn);
}

/** The value `fn` answers, computed once per page request for `key` (outside one: every time). */
export function oncePerWebRequest<T>(key: string, fn: () => Promise<T>): Promise<T> {
  const memo = scope.getStore();
  if (!memo) return fn();
  let value = memo.get(key) as Promise<T> | undefined;
  if (!value) {
    value = fn();
    memo.set(key, value);
    // A failure is not kept: the next caller tries again.
    value.catch(() => memo.delete(key));
  }
  return value;
}
