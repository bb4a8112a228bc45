// Copyright 2026 The toolgate Authors. All rights reserved.
// Use of this source code is governed by the license in the LICENSE file.

package gateway

import "strings"

// grow builds a rule of the Gemini front door's table, which has a
// column for a Gemini backend after the four every table has.
func grow(name string, k jsonKinds, chat, messages, responses, text, gemini Handling, note string) MemberRule {
	r := row(name, k, chat, messages, responses, text, note)
	r.By[KindGemini] = gemini
	return r
}

// geminiMembers is the Gemini front door's table: every member of
// GenerateContentRequest the pinned @google/genai writes for the Gemini
// Developer API, and, as "generationConfig/NAME", each member of its
// GenerationConfig the gateway does not translate (the decoder moves
// those out of generationConfig; a Gemini backend gets them back in
// place).
var geminiMembers = []MemberRule{
	grow("model", jString, hT, hT, hT, hT, hT, "the provider's model name (the path's model wins)"),
	grow("contents", jArray, hT, hT, hT, hE, hT, "functionResponse parts matched to their calls; text models get calls and results as text"),
	grow("systemInstruction", jObject|jString, hT, hT, hT, hT, hT, ""),
	grow("tools", jArray, hT, hT, hT, hE, hT, "functionDeclarations (parameters or parametersJsonSchema); text models: the family's tools prompt"),
	grow("toolConfig", jObject, hT, hT, hT, hE, hT, "functionCallingConfig: AUTO, ANY (allowedFunctionNames), NONE"),
	grow("generationConfig", jObject, hT, hT, hT, hT, hT, "temperature, topP, maxOutputTokens, stopSequences, candidateCount 1, thinkingConfig; its other members are rows below"),
	grow("safetySettings", jArray, hD, hD, hD, hD, hP, "Gemini's safety thresholds"),
	grow("cachedContent", jString, hR, hR, hR, hR, hP, "a Gemini context cache: the answer would lack the prompt it holds"),
	grow("labels", jObject, hD, hD, hD, hD, hP, "billing labels"),
	grow("serviceTier", jString, hD, hD, hD, hD, hP, ""),
	grow("generationConfig/enableEnhancedCivicAnswers", jBool, hD, hD, hD, hD, hP, ""),
	grow("generationConfig/frequencyPenalty", jNumber, hD, hD, hD, hD, hP, ""),
	grow("generationConfig/imageConfig", jObject, hD, hD, hD, hD, hP, "image output"),
	grow("generationConfig/logprobs", jNumber, hR, hR, hR, hR, hP, "the answer would lack them"),
	grow("generationConfig/mediaResolution", jString, hD, hD, hD, hD, hP, "an input hint"),
	grow("generationConfig/presencePenalty", jNumber, hD, hD, hD, hD, hP, ""),
	grow("generationConfig/responseJsonSchema", jObject|jBool, hR, hR, hR, hR, hP, "structured output"),
	grow("generationConfig/responseLogprobs", jBool, hR, hR, hR, hR, hP, "the answer would lack them"),
	grow("generationConfig/responseMimeType", jString, hR, hR, hR, hR, hP, "JSON or enum output (text/plain, the default, is left out)"),
	grow("generationConfig/responseModalities", jArray, hD, hD, hD, hD, hP, "text is what every backend gives"),
	grow("generationConfig/responseSchema", jObject, hR, hR, hR, hR, hP, "structured output"),
	grow("generationConfig/seed", jNumber, hD, hD, hD, hD, hP, ""),
	grow("generationConfig/speechConfig", jObject, hD, hD, hD, hD, hP, "audio output"),
	grow("generationConfig/topK", jNumber, hD, hD, hD, hD, hP, ""),
}

// geminiConfigMember is the Extra key of a member of generationConfig
// the gateway does not translate.
const geminiConfigMember = "generationConfig/"

// geminiCamel spells a snake_case member name as Gemini's JSON does
// (safety_settings: safetySettings); the API takes both.
func geminiCamel(name string) string {
	if !strings.Contains(name, "_") {
		return name
	}
	var b strings.Builder
	up := false
	for _, c := range name {
		switch {
		case c == '_':
			up = true
		case up && c >= 'a' && c <= 'z':
			b.WriteRune(c - 'a' + 'A')
			up = false
		default:
			b.WriteRune(c)
			up = false
		}
	}
	return b.String()
}
