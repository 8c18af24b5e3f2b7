import { index, prefix, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  index("features/landing/home.tsx"),
  route("help", "features/help/help.tsx"),
  route("not-ready-yet", "features/waitlist/not-ready-yet.tsx"),
  route("policies/terms-and-conditions", "features/policies/policies.terms.tsx"),
  route("policies/privacy-policy", "features/policies/policies.privacy.tsx"),
  route("GiftCard/:code", "features/site/gift-card.tsx"),
  route("error", "features/site/error.tsx"),
  ...prefix("corporate", [
    route("sign-up", "features/accounts/corporate.sign-up.tsx"),
    route("verify", "features/accounts/corporate.verify.tsx"),
    route("login", "features/accounts/corporate.login.tsx"),
    route("login-code", "features/accounts/corporate.login-code.tsx"),
    route("two-factor-setup", "features/accounts/corporate.two-factor-setup.tsx"),
    route("logout", "features/accounts/corporate.logout.tsx"),
    route("forgot-password-request", "features/accounts/corporate.forgot-password-request.tsx"),
    route("forgot-password", "features/accounts/corporate.forgot-password.tsx"),
    route("accept-invite", "features/accounts/corporate.accept-invite.tsx"),
    route("sso/callback", "features/accounts/corporate.sso.callback.tsx"),
  ]),
  route("portal", "features/portal/portal.tsx", [
    index("features/portal/portal._index.tsx"),
    route("dashboard", "features/dashboard/portal.dashboard.tsx"),
    route("onboarding-add-company-details", "features/onboarding/portal.onboarding-add-company-details.tsx"),
    route("help", "features/help/portal.help.tsx"),
    route("my-team", "features/my-team/portal.my-team.tsx"),
    route("reward-my-team", "features/reward-my-team/portal.reward-my-team.tsx"),
    route("reward-my-team-review", "features/payment/portal.reward-my-team-review.tsx"),
    route("payment-authentication", "features/payment/portal.payment-authentication.tsx"),
    route("payment-confirmation", "features/payment/portal.payment-confirmation.tsx"),
    route("reward-email-sample", "features/payment/portal.reward-email-sample.tsx"),
    route("approvals/:orderId", "features/approvals/portal.approvals.order.tsx"),
    route("invoices/:invoiceNumber", "features/invoices/portal.invoices.invoice.tsx"),
    route("rewards/:releaseId", "features/deliveries/portal.rewards.release.tsx"),
    route("scheduled/:orderId", "features/scheduled/portal.scheduled.order.tsx"),
    route("automations", "features/automations/portal.automations.tsx"),
    route("settings", "features/settings/portal.settings.tsx", [
      index("features/settings/portal.settings._index.tsx"),
      route("company", "features/settings/portal.settings.company.tsx"),
      route("security", "features/settings/portal.settings.security.tsx"),
      route("managers", "features/settings/portal.settings.managers.tsx"),
      route("approvals", "features/settings/portal.settings.approvals.tsx"),
      route("api-keys", "features/settings/portal.settings.api-keys.tsx"),
      route("api-keys/reference", "features/settings/portal.settings.api-reference.tsx"),
      route("webhooks", "features/settings/portal.settings.webhooks.tsx"),
      route("webhooks/:endpointId", "features/settings/portal.settings.webhook-deliveries.tsx"),
      route("single-sign-on", "features/settings/portal.settings.single-sign-on.tsx"),
      route("audit", "features/audit/portal.settings.audit.tsx"),
      route("balance", "features/settings/portal.settings.balance.tsx"),
      route("balance/top-ups/:topUpId", "features/settings/portal.settings.balance.top-up.tsx"),
    ]),
  ]),
  route("portal/my-team/template.csv", "features/my-team/portal.my-team.template.ts"),
  route("portal/settings/audit/export.csv", "features/audit/portal.settings.audit.export.ts"),
  route("portal/reward-history.csv", "features/dashboard/portal.reward-history.csv.ts"),
  route("portal/invoices/:invoiceNumber/pdf", "features/invoices/portal.invoices.invoice.pdf.ts"),
  route("portal/reward-my-team/search", "features/reward-my-team/portal.reward-my-team.search.tsx"),
  route("portal/import-progress", "features/portal/portal.import-progress.ts"),
  route("portal/reward-my-team/template.csv", "features/reward-my-team/portal.reward-my-team.template.ts"),
  route("dev/mailbox", "features/site/dev.mailbox.tsx"),
  // The HTTP benchmark's framework floor (app/features/bench/): only in the build
  // scripts/bench/build-floor.ts makes into build-bench/ (REWARDS_BENCH_FLOOR=1 with the production
  // NODE_ENV it sets). `npm run build` clears the variable (scripts/build.ts) and `node server.ts
  // --dev` runs in development, so neither the shipped build nor a dev server has these routes; this
  // file is read when a build is made, never by the running server.
  ...(process.env.REWARDS_BENCH_FLOOR === "1" && process.env.NODE_ENV === "production"
    ? [route("bench-floor", "features/bench/bench-floor.tsx", [index("features/bench/bench-floor.dashboard.tsx")])]
    : []),
  route("*", "features/site/not-found.tsx"),
] satisfies RouteConfig;
