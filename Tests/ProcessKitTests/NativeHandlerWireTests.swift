import ProcessKit
import SiteSettings
import Testing

struct NativeHandlerWireTests {
    @Test func everyRequestReadsBackAsItWasSentEvenWhenItIsGarbage() throws {
        for seed in UInt64(0)..<300 {
            var samples = WireSamples(seed: seed)
            for message in [samples.json(), samples.request().json] {
                for profile in [nil, "default", "work"] as [String?] {
                    let event = NativeHandlerWire.Event.requestArrived(message, profile: profile)
                    let sent = try throughBytes(NativeHandlerWire.encode(event))
                    #expect(try NativeHandlerWire.decode(sent) == event, "seed \(seed): \(sent)")
                }
            }
        }
    }

    @Test func everyTravellingDirectiveReadsBackAsItWasSent() throws {
        for seed in UInt64(0)..<300 {
            var samples = WireSamples(seed: seed)
            for output in [NativeHandlerWire.Output.reply(samples.reply()), .postChangeNotification] {
                let sent = try throughBytes(NativeHandlerWire.json(output))
                #expect(try NativeHandlerWire.directive(sent) == output, "seed \(seed): \(sent)")
            }
        }
    }

    @Test func containerWorkNeverTravels() {
        #expect(NativeHandlerWire.output(.container(.lock)) == nil)
        #expect(NativeHandlerWire.output(.postChangeNotification) == .postChangeNotification)
    }

    @Test func theRequestAndTheDirectivesAreWrittenAsBefore() throws {
        let message = JSONValue.object(["type": .string("getEnabled")])
        #expect(NativeHandlerWire.encode(.requestArrived(message)) == (try json(#"{"type": "requestArrived", "message": {"type": "getEnabled"}}"#)))
        #expect(NativeHandlerWire.input(message) == NativeHandlerWire.encode(.requestArrived(message)))
        #expect(NativeHandlerWire.encode(.requestArrived(message, profile: "work"))
            == (try json(#"{"type": "requestArrived", "message": {"type": "getEnabled"}, "profile": "work"}"#)))
        #expect(NativeHandlerWire.json(.postChangeNotification) == (try json(#"{"type": "postChangeNotification", "name": "settingsChanged"}"#)))
        #expect(NativeHandlerWire.json(.reply(.applied(DocumentVersion(documentId: "doc-1", revision: 43), changed: true)))
            == (try json(#"{"type": "reply", "message": {"type": "applied", "documentId": "doc-1", "revision": 43, "changed": true}}"#)))
    }

    @Test func theMachineGetsTheMessageAsItArrived() {
        let garbage = JSONValue.array([.integer(1)])
        #expect(NativeHandlerWire.input(for: .requestArrived(garbage), now: 5, seed: 9) == .requestArrived(garbage, now: 5, seed: 9))
    }

    @Test func anInputThatIsNoRequestIsRefused() throws {
        #expect(failure { try NativeHandlerWire.decode(try! json(#"{"type": "launched"}"#)) } == "type: expected requestArrived")
        #expect(failure { try NativeHandlerWire.decode(try! json(#"{"type": "requestArrived"}"#)) } == "message: missing")
    }

    @Test func aMalformedDirectiveIsRefusedNamingTheMemberAtFault() throws {
        func directive(_ text: String) throws -> String? {
            let value = try json(text)
            return failure { try NativeHandlerWire.directive(value) }
        }
        // A reply is any JSON value, a handler's own: what is not one of the design's replies
        // is carried as it was given, and no message is a reply with none.
        for own in [#"{"type": "error", "code": "sad", "message": "x"}"#, #"{"type": "applied", "changed": true, "revision": 3}"#, #""pong""#, "null"] {
            #expect(try NativeHandlerWire.directive(json(#"{"type": "reply", "message": \#(own)}"#)) == .answer(try json(own)))
        }
        #expect(try NativeHandlerWire.directive(json(#"{"type": "reply"}"#)) == .answer(nil))
        #expect(try NativeHandlerWire.directive(json(#"{"type": "cancel"}"#)) == .cancel)
        #expect(try directive(#"{"type": "cancel", "error": "x"}"#) == "error: unknown member")
        #expect(try directive(#"{"type": "postChangeNotification", "name": "somethingElse"}"#) == "name: expected settingsChanged")
        #expect(try directive(#"["reply"]"#) == "document: expected an object")
    }
}
