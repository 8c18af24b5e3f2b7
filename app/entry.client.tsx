import { StrictMode, startTransition } from "react";
import { hydrateRoot } from "react-dom/client";
import { HydratedRouter } from "react-router/dom";

function hydrate() {
  startTransition(() => {
    hydrateRoot(
      document,
      <StrictMode>
        <HydratedRouter />
      </StrictMode>,
    );
  });
}

// Every page is complete server HTML that works without JavaScript, so hydration can wait for
// the browser's first idle moment after loading rather than compete with the first paint.
if ("requestIdleCallback" in window) requestIdleCallback(hydrate, { timeout: 2000 });
else setTimeout(hydrate, 1);
