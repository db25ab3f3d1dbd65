//! What a response cost, from the model's prices per million tokens, as Pi computes it: the
//! highest price tier whose threshold the request's whole input (fresh, cache reads and
//! cache writes) exceeds replaces the base prices for the whole request.

use pi_ai::{Cost, Usage};

use crate::model::{CostRates, ModelCost};

/// Fills `usage.cost` from `prices` and returns it.
pub fn calculate_cost(prices: &ModelCost, usage: &mut Usage) -> Cost {
    let input_tokens = usage.input + usage.cache_read + usage.cache_write;
    let rates: CostRates = prices
        .tiers
        .iter()
        .filter(|tier| input_tokens > tier.input_tokens_above)
        .max_by_key(|tier| tier.input_tokens_above)
        .map_or(prices.rates, |tier| tier.rates);
    // Token counts are far below 2^53: the conversions are exact.
    #[allow(clippy::cast_precision_loss)]
    let per_million = |rate: f64, tokens: u64| rate / 1_000_000.0 * tokens as f64;
    let mut cost = Cost {
        input: per_million(rates.input, usage.input),
        output: per_million(rates.output, usage.output),
        cache_read: per_million(rates.cache_read, usage.cache_read),
        cache_write: per_million(rates.cache_write, usage.cache_write),
        total: 0.0,
    };
    cost.total = cost.input + cost.output + cost.cache_read + cost.cache_write;
    usage.cost = cost;
    cost
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::model::CostTier;

    fn usage(input: u64, output: u64, cache_read: u64, cache_write: u64) -> Usage {
        Usage {
            input,
            output,
            cache_read,
            cache_write,
            total_tokens: input + output + cache_read + cache_write,
            cost: Cost::default(),
        }
    }

    #[test]
    fn a_known_usage_costs_its_tokens_at_the_prices_per_million() {
        // Claude Haiku 4.5's prices: $1 in, $5 out, $0.10 cache read, $1.25 cache write.
        let prices = ModelCost {
            rates: CostRates {
                input: 1.0,
                output: 5.0,
                cache_read: 0.1,
                cache_write: 1.25,
            },
            tiers: Vec::new(),
        };
        let mut used = usage(10_000, 2_000, 50_000, 4_000);
        let cost = calculate_cost(&prices, &mut used);
        assert!((cost.input - 0.01).abs() < 1e-12);
        assert!((cost.output - 0.01).abs() < 1e-12);
        assert!((cost.cache_read - 0.005).abs() < 1e-12);
        assert!((cost.cache_write - 0.005).abs() < 1e-12);
        assert!((cost.total - 0.03).abs() < 1e-12);
        assert_eq!(used.cost, cost);
    }

    #[test]
    fn a_tier_applies_to_the_whole_request_above_its_threshold() {
        let tier = |above, input| CostTier {
            input_tokens_above: above,
            rates: CostRates {
                input,
                output: 0.0,
                cache_read: 0.0,
                cache_write: 0.0,
            },
        };
        let prices = ModelCost {
            rates: CostRates {
                input: 5.0,
                ..CostRates::default()
            },
            tiers: vec![tier(400_000, 20.0), tier(272_000, 10.0)],
        };
        let cost =
            |input, cache_read| calculate_cost(&prices, &mut usage(input, 0, cache_read, 0)).input;
        assert!((cost(272_000, 0) - 1.36).abs() < 1e-9);
        assert!((cost(200_000, 100_000) - 2.0).abs() < 1e-9);
        assert!((cost(500_000, 0) - 10.0).abs() < 1e-9);
    }
}
