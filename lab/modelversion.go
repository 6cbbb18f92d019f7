package lab

// ModelVersion names the model whose figures a run gives: the same
// settings and seed give the same figures under one ModelVersion. It is
// raised when a change makes them give other figures (a new edition of
// the report card, a change to the link, the client or the server), so a
// saved baseline ('lab check --save-baseline') is never compared with
// figures of another model. "card-2" is the report card's second edition.
const ModelVersion = "card-2"
