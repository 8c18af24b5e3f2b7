// The panel of a secret shown once, right after it was made (an API key, ADR 0028; a webhook's
// signing secret, ADR 0044, ADR 0045): a heading, what to do with it, and a read-only field to copy it from.
// The page never holds it again, so this is the only place it appears.
import type { ReactNode } from "react";
import { controlClass, labelClass } from "./settings-styles.ts";

export function ShownOnce({
  id,
  testId,
  title,
  children,
  label,
  value,
  after,
}: {
  /** The panel's id: its heading is `${id}-heading`, its field `${id}-value`. */
  id: string;
  testId: string;
  title: ReactNode;
  /** What is said above the field. */
  children: ReactNode;
  label: string;
  value: string;
  /** What is said below the field. */
  after?: ReactNode;
}) {
  return (
    <section
      aria-labelledby={`${id}-heading`}
      className="rounded-lg border-2 border-green-700 bg-green-50 p-4 sm:p-6"
      data-testid={testId}
    >
      <h2 id={`${id}-heading`} className="text-xl font-bold text-green-900">
        {title}
      </h2>
      {children}
      <label htmlFor={`${id}-value`} className={`${labelClass} mt-3`}>
        {label}
      </label>
      <input
        id={`${id}-value`}
        readOnly
        value={value}
        autoComplete="off"
        spellCheck={false}
        className={`${controlClass} font-mono text-sm`}
      />
      {after}
    </section>
  );
}
