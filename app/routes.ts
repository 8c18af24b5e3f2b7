import { index, prefix, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("help", "routes/help.tsx"),
  route("not-ready-yet", "routes/not-ready-yet.tsx"),
  route("policies/terms-and-conditions", "routes/policies.terms.tsx"),
  route("policies/privacy-policy", "routes/policies.privacy.tsx"),
  route("GiftCard/:code", "routes/gift-card.tsx"),
  route("error", "routes/error.tsx"),
  ...prefix("corporate", [
    route("sign-up", "routes/corporate.sign-up.tsx"),
    route("verify", "routes/corporate.verify.tsx"),
    route("login", "routes/corporate.login.tsx"),
    route("logout", "routes/corporate.logout.tsx"),
    route("forgot-password-request", "routes/corporate.forgot-password-request.tsx"),
    route("forgot-password", "routes/corporate.forgot-password.tsx"),
  ]),
  route("portal", "routes/portal.tsx", [
    index("routes/portal._index.tsx"),
    route("dashboard", "routes/portal.dashboard.tsx"),
    route("onboarding-add-company-details", "routes/portal.onboarding-add-company-details.tsx"),
    route("help", "routes/portal.help.tsx"),
    route("my-team", "routes/portal.my-team.tsx"),
    route("reward-my-team", "routes/portal.reward-my-team.tsx"),
  ]),
  route("portal/my-team/template.csv", "routes/portal.my-team.template.ts"),
  route("portal/reward-my-team/search", "routes/portal.reward-my-team.search.tsx"),
  route("dev/mailbox", "routes/dev.mailbox.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
