package hosted

// DecodeAnswer is decodeAnswer, for the tests of the hosted_test package.
var DecodeAnswer = decodeAnswer
