/**
 * Token bucket per business: capacity = rate, refilled continuously at `rate` tokens per
 * second. A client that paces itself at the documented 200 rps never sees a 429; a burst
 * beyond it does. rate 0 disables limiting.
 */
export class BusinessRateLimiter {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(
    readonly rate: number,
    private readonly now: () => number = () => performance.now(),
  ) {}

  /** Takes one token for the business; false when the limit is exceeded. */
  take(businessId: string): boolean {
    if (this.rate <= 0) return true;
    const t = this.now();
    const bucket = this.buckets.get(businessId) ?? { tokens: this.rate, at: t };
    bucket.tokens = Math.min(this.rate, bucket.tokens + ((t - bucket.at) / 1000) * this.rate);
    bucket.at = t;
    this.buckets.set(businessId, bucket);
    if (bucket.tokens < 1) return false;
    bucket.tokens -= 1;
    return true;
  }

  /** Refills every bucket. */
  reset(): void {
    this.buckets.clear();
  }
}
