//! Faults on the wire: stdio framing and `/mcp` sessions (issue 16, items 7 and 8).
