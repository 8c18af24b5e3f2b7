import { index, type RouteConfig, route } from "@react-router/dev/routes";

export default [
  index("routes/home.tsx"),
  route("help", "routes/help.tsx"),
  route("not-ready-yet", "routes/not-ready-yet.tsx"),
  route("policies/terms-and-conditions", "routes/policies.terms.tsx"),
  route("policies/privacy-policy", "routes/policies.privacy.tsx"),
  route("GiftCard/:code", "routes/gift-card.tsx"),
  route("error", "routes/error.tsx"),
  route("dev/mailbox", "routes/dev.mailbox.tsx"),
  route("*", "routes/not-found.tsx"),
] satisfies RouteConfig;
