import { useEffect } from "react";
import { useLocation } from "react-router";
import { sharedPageHeaders } from "../../../core/shared-page.ts";
import { services } from "../../context.ts";
import { createApiClient } from "../../lib/api.server.ts";
import { scrollToSection } from "../../lib/smooth-scroll.ts";
import { useSite } from "../../root.tsx";
import { PublicLayout } from "../site/public-layout.tsx";
import type { Route } from "./+types/home";
import { BrandsGlance, CatalogueGlance, type LatestRewardCard } from "./landing-catalogue.tsx";
import { LandingHero } from "./landing-hero.tsx";
import { Features, HowItWorks, ReadyCta, WhyChoose } from "./landing-sections.tsx";

// The same for every visitor without a session: kept whole by the edge for a minute.
export const headers = sharedPageHeaders;

const TITLE = "Reward Portal | Reward your people instantly with eGift cards";
const DESCRIPTION =
  "Reward staff and customers instantly with digital gift cards from over 100 of the best Australian retailers. Create a free account, add recipients and pay only for what you allocate.";

export const meta: Route.MetaFunction = ({ loaderData }) => [
  { title: TITLE },
  { name: "description", content: DESCRIPTION },
  { property: "og:type", content: "website" },
  { property: "og:title", content: TITLE },
  { property: "og:description", content: DESCRIPTION },
  ...(loaderData ? [{ tagName: "link", rel: "canonical", href: loaderData.canonicalUrl }] : []),
];

export async function loader({ context }: Route.LoaderArgs) {
  const { config, logger } = services(context);
  const canonicalUrl = new URL("/", config.appUrl).toString();
  const result = await createApiClient(context).call((api) => api.Catalogue["latest-reward"].$get());
  // docs/requirements.md §S8: a failed catalogue fetch is only logged; the glance shows no cards.
  if (!result.ok) {
    logger.error({ status: result.status, detail: result.detail }, "latest rewards could not be loaded");
    return { canonicalUrl, latestRewards: [] as LatestRewardCard[] };
  }
  return { canonicalUrl, latestRewards: Array.isArray(result.data) ? result.data : [] };
}

export default function Home({ loaderData }: Route.ComponentProps) {
  const { catalogueUrl } = useSite();
  const { hash } = useLocation();

  // An address with #section (a shared link, or arriving from another page) scrolls smoothly too.
  useEffect(() => {
    let id = "";
    try {
      id = decodeURIComponent(hash.slice(1));
    } catch {
      return;
    }
    if (!id || id === "navigation") return;
    // After the router's own jump to the hash, which runs in a layout effect.
    const frame = window.requestAnimationFrame(() => scrollToSection(id));
    return () => window.cancelAnimationFrame(frame);
  }, [hash]);

  return (
    <PublicLayout>
      <LandingHero />
      <BrandsGlance />
      <HowItWorks />
      <CatalogueGlance rewards={loaderData.latestRewards} catalogueUrl={catalogueUrl} />
      <Features />
      <WhyChoose />
      <ReadyCta />
    </PublicLayout>
  );
}
