// The e2e mail app's test clock: loaded with --import into the app process that smtp-app.ts starts
// (never into the application otherwise). Every `new Date()` and `Date.now()` of the process runs
// ahead by an offset the harness raises over its IPC channel ({ advanceMs }), so a spec can let
// a scheduled reward's time pass without waiting for it. Timers and PGlite's own now() are not
// shifted; the scheduler reads the time through Date.
const RealDate = Date;
let offsetMs = 0;

class ShiftedDate extends RealDate {
  constructor(...args: unknown[]) {
    if (args.length === 0) super(RealDate.now() + offsetMs);
    else super(...(args as [string | number]));
  }

  static override now(): number {
    return RealDate.now() + offsetMs;
  }
}

globalThis.Date = ShiftedDate as DateConstructor;

process.on("message", (message: unknown) => {
  const advanceMs = (message as { advanceMs?: unknown } | null)?.advanceMs;
  if (typeof advanceMs === "number" && Number.isFinite(advanceMs) && advanceMs > 0) offsetMs += advanceMs;
});
// The IPC channel alone must not keep the process alive after the server closes.
process.channel?.unref();
