import { href, Link } from "react-router";
import { Carousel } from "./landing-carousel.tsx";
import { LandingSection, SectionHeading } from "./landing-section.tsx";

export interface LatestRewardCard {
  brand: string;
  imageURL: string;
  clickURL: string;
}

/** docs/requirements.md §S2's retailer carousel, in its order; the tiles are our own wordmarks in public/brands/. */
const BRANDS = [
  { slug: "apple", title: "Apple" },
  { slug: "bunnings", title: "Bunnings" },
  { slug: "flight-centre", title: "Flight-Centre" },
  { slug: "bws", title: "BWS" },
  { slug: "jb-hifi", title: "JB-HIFI" },
  { slug: "myer", title: "Myer" },
  { slug: "woolworths", title: "Woolworths" },
  { slug: "lululemon", title: "LuluLemon" },
  { slug: "boohoo", title: "Boohoo" },
];

export function BrandsGlance() {
  return (
    <LandingSection id="glanceBrands" className="bg-slate-50">
      <SectionHeading
        id="glanceBrands-title"
        eyebrow="Over 100 retailers"
        title="Gift cards from the brands Australians love"
        intro="Recipients pick from fashion, tech, travel, home improvement, groceries and more."
      />
      <div className="mt-10">
        <Carousel
          label="Retailers"
          focusableStrip
          slideClassName="basis-full md:basis-1/3 2xl:basis-1/5"
          slides={BRANDS.map((b) => ({
            key: b.slug,
            content: (
              <figure className="flex flex-col items-center gap-3 py-2">
                <img
                  src={`/brands/${b.slug}.svg`}
                  alt={b.title}
                  width={240}
                  height={120}
                  loading="lazy"
                  decoding="async"
                  className="h-auto w-60 max-w-full rounded-2xl shadow-md"
                />
                <figcaption className="font-semibold text-slate-700">{b.title}</figcaption>
              </figure>
            ),
          }))}
        />
      </div>
    </LandingSection>
  );
}

export function CatalogueGlance({ rewards, catalogueUrl }: { rewards: LatestRewardCard[]; catalogueUrl: string }) {
  return (
    <LandingSection id="glanceCatalogue" className="bg-brand-50">
      <SectionHeading
        id="glanceCatalogue-title"
        eyebrow="The reward catalogue"
        title="The latest rewards"
        intro="A glance at the gift cards your people can choose from today."
      />
      {rewards.length > 0 ? (
        <div className="mt-10">
          <Carousel
            label="Latest rewards"
            slideClassName="basis-full sm:basis-1/2 md:basis-1/3 xl:basis-1/4"
            slides={rewards.map((r, i) => ({
              key: `${r.brand}-${i}`,
              content: (
                <a
                  href={r.clickURL}
                  target="_blank"
                  rel="noopener noreferrer"
                  className="group flex w-full max-w-xs flex-col items-center gap-3 rounded-2xl p-2 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
                >
                  <img
                    src={r.imageURL}
                    alt=""
                    width={320}
                    height={200}
                    loading="lazy"
                    decoding="async"
                    className="h-auto w-full rounded-2xl shadow-md transition-transform group-hover:-translate-y-1"
                  />
                  <span className="font-semibold text-slate-800 group-hover:text-brand-700 group-hover:underline">
                    {r.brand}
                    <span className="sr-only"> gift card (opens in a new tab)</span>
                  </span>
                </a>
              ),
            }))}
          />
        </div>
      ) : null}
      <div className="mt-10 flex flex-col justify-center gap-3 sm:flex-row">
        <Link
          to={href("/corporate/sign-up")}
          className="inline-flex min-h-12 items-center justify-center rounded-full bg-brand-700 px-7 font-semibold text-white hover:bg-brand-800 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
        >
          Reward My Team
        </Link>
        <a
          href={catalogueUrl}
          target="_blank"
          rel="noopener noreferrer"
          className="inline-flex min-h-12 items-center justify-center rounded-full border-2 border-brand-700 bg-white px-7 font-semibold text-brand-800 hover:bg-brand-100 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700"
        >
          Browse All Rewards<span className="sr-only"> (opens in a new tab)</span>
        </a>
      </div>
    </LandingSection>
  );
}
