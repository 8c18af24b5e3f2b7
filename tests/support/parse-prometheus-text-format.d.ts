// The part of parse-prometheus-text-format 1.1 the metrics test reads (the package ships no types):
// one family per metric name, each sample's value as the text it had.
declare module "parse-prometheus-text-format" {
  interface Sample {
    labels?: Record<string, string>;
    /** Counters, gauges and untyped samples. */
    value?: string;
    /** Histograms: the cumulative count per upper bound ("+Inf" the last). */
    buckets?: Record<string, string>;
    count?: string;
    sum?: string;
  }
  interface Family {
    name: string;
    help: string;
    type: "COUNTER" | "GAUGE" | "HISTOGRAM" | "SUMMARY" | "UNTYPED";
    metrics: Sample[];
  }
  export default function parsePrometheusTextFormat(text: string): Family[];
}
