// No cycles between feature folders (docs/decisions/0030-imports-run-one-way.md): a cruise of
// app/features/ alone, each folder a node, so a cycle found is one feature leading back to itself
// through others (one running through app/lib or app/ui is already an error of the main rules,
// .dependency-cruiser.mjs). Type imports count: they tie the folders together as much.

import layers from "./.dependency-cruiser.mjs";

/** @type {import("dependency-cruiser").IConfiguration} */
export default {
  forbidden: [
    {
      name: "no-feature-folder-cycles",
      comment:
        "Feature folders depend on each other one way (ADR 0019): what two features both need moves to " +
        "app/ui (components) or app/lib (the rest).",
      severity: "error",
      scope: "folder",
      from: { path: "^app/features/[^/]+$" },
      to: { path: "^app/features/[^/]+$", circular: true },
    },
  ],
  options: {
    ...layers.options,
    includeOnly: "^app/features/",
    // Tests may use another feature's pages and helpers to reach their case.
    exclude: { path: `${layers.options.exclude.path}|\\.test\\.tsx?$` },
  },
};
