// conform's `constraint` from the core schemas (formConstraint): the required and maxlength
// attributes each input carries before hydration, when the browser checks the form itself
// (docs/requirements.md §S5, §S9; §D9 "JavaScript on and off").
import { describe, expect, it } from "vitest";
import { contactFormSchema, waitlistFormSchema } from "../../core/public-forms.ts";
import {
  companyDetailsSchema,
  forgotFormSchema,
  helpSchema,
  loginFormSchema,
  resetFormSchema,
  signUpFormSchema,
} from "../../modules/identity/schema.ts";
import { newRewardUserSchema } from "../../modules/reward-drafts/schema.ts";
import { teamMemberSchema } from "../../modules/team/schema.ts";
import { formConstraint } from "./forms.ts";

const name = { required: true, maxLength: 64 };
const email = { required: true, maxLength: 256 };
const password = { required: true, maxLength: 256 };

describe("formConstraint", () => {
  it("gives each visible field of the public and account forms its attributes", () => {
    expect(formConstraint(signUpFormSchema)).toMatchObject({
      firstName: name,
      lastName: name,
      email,
      companyName: { required: true, maxLength: 100 },
      password,
      confirmPassword: password,
    });
    expect(formConstraint(loginFormSchema)).toMatchObject({ userName: email, password });
    expect(formConstraint(forgotFormSchema)).toEqual({ email });
    expect(formConstraint(resetFormSchema)).toMatchObject({ password, confirmPassword: password });
    expect(formConstraint(waitlistFormSchema)).toMatchObject({
      firstName: name,
      lastName: name,
      email,
      companyName: { required: true, maxLength: 100 },
      terms: { required: true },
    });
    expect(formConstraint(contactFormSchema)).toMatchObject({
      firstName: name,
      lastName: name,
      email,
      message: { required: true, maxLength: 256 },
    });
  });

  it("gives the portal forms theirs", () => {
    expect(formConstraint(helpSchema)).toEqual({ message: { required: true, maxLength: 256 } });
    expect(formConstraint(teamMemberSchema)).toEqual({
      firstName: name,
      lastName: name,
      email,
      // A member's optional details (modules/team/schema.ts): none is required.
      birthDay: { required: false },
      birthMonth: { required: false },
      startDate: { required: false },
      state: { required: false },
    });
    expect(formConstraint(newRewardUserSchema)).toEqual({
      firstName: name,
      lastName: name,
      email,
      value: { required: false },
    });
    expect(formConstraint(companyDetailsSchema, { ABN: { required: true, maxLength: 11 } })).toEqual({
      name: { required: true, maxLength: 100 },
      ABN: { required: true, maxLength: 11 },
      size: { required: true },
      industry: { required: true },
    });
  });

  it("leaves optional inputs (the captcha's hidden ones) not required", () => {
    expect(formConstraint(contactFormSchema)).toMatchObject({
      captchaToken: { required: false },
      isCaptchaV3: { required: false },
    });
  });
});
