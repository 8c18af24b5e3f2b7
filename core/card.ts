// Card numbers, pure and dependency-free: the browser's card form (app/features/payment/payment.ts), the
// simulated processor (server/payments/simulated.ts) and the log scan of the security suite share it.

/** The number as typed, without the spaces or dashes people put between groups. */
export function cardDigits(cardNumber: string): string {
  return cardNumber.replace(/[\s-]/g, "");
}

/** The Luhn check every real card number passes (Stripe's test cards do). */
export function luhnValid(digits: string): boolean {
  if (!/^\d+$/.test(digits)) return false;
  let sum = 0;
  for (let i = 0; i < digits.length; i++) {
    let digit = Number(digits[digits.length - 1 - i]);
    if (i % 2 === 1) {
      digit *= 2;
      if (digit > 9) digit -= 9;
    }
    sum += digit;
  }
  return sum % 10 === 0;
}

/** 12 to 19 digits that pass the Luhn check: a number a processor would try. */
export function isCardNumber(digits: string): boolean {
  return /^\d{12,19}$/.test(digits) && luhnValid(digits);
}
