package hl7

// memoMaxKey bounds the code and text of a mapping kept in allergenMemo or dietMemo (bytes of
// both together): a feed sends the same few hundred codes and texts (one hospital's diet
// catalogue, its allergy pick list) over and over, and a hostile or unusual value is mapped each
// time rather than kept, so the memos cost at most a few megabytes. Keys are copied out of the
// body (memoKey.clone), so they never pin one. See internal/memo.
const memoMaxKey = 160
