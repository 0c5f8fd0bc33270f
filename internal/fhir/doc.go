// Package fhir reads the FHIR R4 resources the census takes, in their JSON form: Bundle, Patient,
// Encounter, AllergyIntolerance and NutritionOrder, and writes the OperationOutcome and response
// Bundle. The structs are written by hand and hold only the members the census reads: the
// generated FHIR libraries for Go are tens of megabytes of protobuf, or unmaintained.
//
// Parsing is bounded: a body's nesting depth and its number of entries are checked before any
// resource is decoded (see Parse).
package fhir
