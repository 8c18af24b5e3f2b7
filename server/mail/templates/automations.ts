// The automations' email to the Owners (ADR 0035): a run found the prepaid balance too short for
// the day's automated rewards, so it sent nothing and paused them. Sent once per pause.
import { formatDollars } from "../../../core/money.ts";
import { email, type RenderedEmail } from "./render.ts";

export function automationsPausedEmail(input: {
  to: string;
  firstName: string;
  rewardNames: string[];
  neededCents: number;
  balanceCents: number;
  link: string;
}): RenderedEmail {
  return email(input.to, "Automated rewards paused: the balance is too low", {
    heading: "Automated rewards are paused",
    paragraphs: [
      `Hi ${input.firstName},`,
      "Today's automated rewards need more than the prepaid balance holds, so none of them was sent and the automations below are paused.",
      "Top up the balance, then turn the automations on again: rewards that fell due in the last three days go out at the next run.",
    ],
    details: [
      ["Automations", input.rewardNames.join(", ")],
      ["Needed", formatDollars(input.neededCents)],
      ["Balance", formatDollars(input.balanceCents)],
    ],
    action: { label: "Open the automations", url: input.link },
  });
}
