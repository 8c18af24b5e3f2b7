import { type ReactNode, useCallback, useEffect, useId, useRef, useState } from "react";
import { prefersReducedMotion } from "../../lib/smooth-scroll.ts";

export const AUTOPLAY_MS = 2000;

export interface Slide {
  key: string;
  content: ReactNode;
}

/**
 * A small carousel on a native scroll-snap strip: without JavaScript it is a strip to swipe or
 * scroll; with it, previous/next buttons, a pause control and autoplay every 2000 ms that stops on
 * hover, on focus, while the strip is off screen, and entirely under prefers-reduced-motion.
 */
export function Carousel({
  label,
  slides,
  slideClassName,
  focusableStrip = false,
}: {
  label: string;
  slides: Slide[];
  /** Widths per breakpoint, e.g. "basis-full md:basis-1/3". */
  slideClassName: string;
  /** Give the strip a tab stop when its slides hold nothing focusable (keyboard scrolling). */
  focusableStrip?: boolean;
}) {
  const stripId = useId();
  const stripRef = useRef<HTMLDivElement>(null);
  const [enhanced, setEnhanced] = useState(false);
  const [playing, setPlaying] = useState(true);
  const [hovered, setHovered] = useState(false);
  const [focused, setFocused] = useState(false);
  const [visible, setVisible] = useState(false);

  useEffect(() => {
    setEnhanced(true);
    if (prefersReducedMotion()) setPlaying(false);
    const strip = stripRef.current;
    if (!strip) return;
    const observer = new IntersectionObserver(([entry]) => setVisible(Boolean(entry?.isIntersecting)), {
      threshold: 0.6,
    });
    observer.observe(strip);
    return () => observer.disconnect();
  }, []);

  const step = useCallback((direction: 1 | -1) => {
    const strip = stripRef.current;
    const [first, second] = strip ? Array.from(strip.children as HTMLCollectionOf<HTMLElement>) : [];
    if (!strip || !first) return;
    const pitch = second ? second.offsetLeft - first.offsetLeft : first.offsetWidth;
    const max = strip.scrollWidth - strip.clientWidth;
    let left = strip.scrollLeft + direction * pitch;
    // Wrap around at either end.
    if (direction > 0 && strip.scrollLeft >= max - 2) left = 0;
    if (direction < 0 && strip.scrollLeft <= 2) left = max;
    strip.scrollTo({ left, behavior: prefersReducedMotion() ? "instant" : "smooth" });
  }, []);

  const autoplay = enhanced && playing && visible && !hovered && !focused;
  useEffect(() => {
    if (!autoplay) return;
    const timer = window.setInterval(() => step(1), AUTOPLAY_MS);
    return () => window.clearInterval(timer);
  }, [autoplay, step]);

  const button =
    "inline-flex size-11 items-center justify-center rounded-full border border-slate-300 bg-white text-brand-800 shadow-sm hover:border-brand-700 hover:bg-brand-50 focus-visible:outline-2 focus-visible:outline-offset-2 focus-visible:outline-brand-700";

  return (
    <section
      aria-roledescription="carousel"
      aria-label={label}
      className="min-w-0"
      onMouseEnter={() => setHovered(true)}
      onMouseLeave={() => setHovered(false)}
      // Focus on the slides pauses; focus on the controls leaves the play/pause choice in charge.
      onFocus={(event) => setFocused(stripRef.current?.contains(event.target) ?? false)}
      onBlur={(event) => {
        if (!stripRef.current?.contains(event.relatedTarget)) setFocused(false);
      }}
    >
      {/* biome-ignore lint/a11y/useSemanticElements: a named group of slides, not a set of form fields */}
      <div
        ref={stripRef}
        id={stripId}
        role="group"
        aria-label={`${label}: scroll sideways for more`}
        tabIndex={focusableStrip ? 0 : undefined}
        className="relative flex snap-x snap-mandatory overflow-x-auto overscroll-x-contain rounded-lg pb-2 [scrollbar-width:thin] focus-visible:outline-2 focus-visible:outline-offset-4 focus-visible:outline-brand-700"
      >
        {slides.map((slide, index) => (
          // biome-ignore lint/a11y/useSemanticElements: the APG carousel pattern's slide, not form fields
          <div
            key={slide.key}
            role="group"
            aria-roledescription="slide"
            aria-label={`${index + 1} of ${slides.length}`}
            className={`flex shrink-0 snap-start justify-center px-2 ${slideClassName}`}
          >
            {slide.content}
          </div>
        ))}
      </div>
      {/* Same height with or without JavaScript, so hydration shifts nothing. */}
      <div className="mt-4 flex h-11 items-center justify-center gap-3">
        {enhanced ? (
          <>
            <button type="button" className={button} aria-controls={stripId} onClick={() => step(-1)}>
              <Chevron direction="left" />
              <span className="sr-only">Previous slide</span>
            </button>
            <button type="button" className={button} aria-controls={stripId} onClick={() => setPlaying((p) => !p)}>
              {playing ? <PauseIcon /> : <PlayIcon />}
              <span className="sr-only">{playing ? "Stop automatic slide show" : "Start automatic slide show"}</span>
            </button>
            <button type="button" className={button} aria-controls={stripId} onClick={() => step(1)}>
              <Chevron direction="right" />
              <span className="sr-only">Next slide</span>
            </button>
          </>
        ) : (
          <p className="text-sm text-slate-600">Scroll sideways to see more.</p>
        )}
      </div>
    </section>
  );
}

function Chevron({ direction }: { direction: "left" | "right" }) {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="none" stroke="currentColor" strokeWidth="2.5">
      <path strokeLinecap="round" strokeLinejoin="round" d={direction === "left" ? "M15 5l-7 7 7 7" : "M9 5l7 7-7 7"} />
    </svg>
  );
}

function PauseIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="currentColor">
      <rect x="6" y="5" width="4" height="14" rx="1" />
      <rect x="14" y="5" width="4" height="14" rx="1" />
    </svg>
  );
}

function PlayIcon() {
  return (
    <svg aria-hidden="true" viewBox="0 0 24 24" className="size-5" fill="currentColor">
      <path d="M8 5.5v13a1 1 0 0 0 1.5.86l10.5-6.5a1 1 0 0 0 0-1.72L9.5 4.64A1 1 0 0 0 8 5.5z" />
    </svg>
  );
}
