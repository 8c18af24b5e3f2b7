// The one way a route form wires conform (app/lib/forms.ts, "The pattern"): the schema the action
// parses with is the one the browser checks with, validated on submit and revalidated on input
// (a message appearing on blur would shift the control the person is about to click). The
// caller gives the rest of conform's options: the id, the action's last result, the constraint,
// the default values, `defaultNoValidate: false` where the browser's own checks apply before
// hydration.
import { useForm } from "@conform-to/react";
import { parseWithZod } from "@conform-to/zod/v4";
import type * as z from "zod/mini";

type FormSchema = z.ZodMiniType<Record<string, unknown>, Record<string, unknown>>;
type Options<S extends FormSchema> = Omit<
  Parameters<typeof useForm<z.input<S>, z.output<S>, string[]>>[0],
  "onValidate" | "shouldValidate" | "shouldRevalidate"
>;

/**
 * conform's `useForm`, checked in the browser with `schema`; a form whose buttons post different
 * intents gives a function choosing the schema of the button pressed.
 */
export function useSchemaForm<S extends FormSchema>(schema: S | ((formData: FormData) => S), options: Options<S>) {
  return useForm<z.input<S>, z.output<S>, string[]>({
    shouldValidate: "onSubmit",
    shouldRevalidate: "onInput",
    onValidate: ({ formData }) =>
      parseWithZod(formData, { schema: typeof schema === "function" ? schema(formData) : schema }),
    ...options,
  });
}
