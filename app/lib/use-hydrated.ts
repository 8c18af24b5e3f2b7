// useHydrated with remix-utils' contract (false on the server and in the hydration render, true
// after, and true at once for anything mounted later), but the switch after hydration is a
// transition. remix-utils' hook is a useSyncExternalStore whose server and client snapshots
// differ, so React re-renders every caller and everything below it synchronously right after
// hydration: one long task (about 100 ms on Lighthouse's 4× slower phone for the waitlist or help
// forms; it counted against total blocking time). A transition renders in slices and yields to input.
import { startTransition, useEffect, useState } from "react";

let hydrated = false;

export function useHydrated(): boolean {
  const [value, setValue] = useState(hydrated);
  useEffect(() => {
    hydrated = true;
    if (!value) startTransition(() => setValue(true));
  }, [value]);
  return value;
}
