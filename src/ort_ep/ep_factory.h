// The plugin library's one factory: the `ref` EP (WinmlMakeRefExecutionProvider)
// on the CPU hardware device ONNX Runtime reports.
#pragma once

#include "ort_ep/api.h"

namespace winml::ort_ep {

class RefEpFactory : public OrtEpFactory {
 public:
  RefEpFactory(const Api& api, const OrtLogger* logger);

 private:
  static const char* ORT_API_CALL name_of(const OrtEpFactory* self) noexcept;
  static const char* ORT_API_CALL vendor_of(const OrtEpFactory* self) noexcept;
  static std::uint32_t ORT_API_CALL vendor_id_of(const OrtEpFactory* self) noexcept;
  static const char* ORT_API_CALL version_of(const OrtEpFactory* self) noexcept;
  static OrtStatus* ORT_API_CALL supported_devices(OrtEpFactory* self, const OrtHardwareDevice* const* devices,
                                                   std::size_t count, OrtEpDevice** ep_devices,
                                                   std::size_t max_ep_devices, std::size_t* ep_device_count) noexcept;
  static OrtStatus* ORT_API_CALL create_ep(OrtEpFactory* self, const OrtHardwareDevice* const* devices,
                                           const OrtKeyValuePairs* const* metadata, std::size_t count,
                                           const OrtSessionOptions* options, const OrtLogger* logger,
                                           OrtEp** ep) noexcept;
  static void ORT_API_CALL release_ep(OrtEpFactory* self, OrtEp* ep) noexcept;
  static OrtStatus* ORT_API_CALL validate_compatibility(OrtEpFactory* self, const OrtHardwareDevice* const* devices,
                                                        std::size_t count, const char* info,
                                                        OrtCompiledModelCompatibility* result) noexcept;
  static OrtStatus* ORT_API_CALL create_allocator(OrtEpFactory* self, const OrtMemoryInfo* info,
                                                  const OrtKeyValuePairs* options, OrtAllocator** allocator) noexcept;
  static void ORT_API_CALL release_allocator(OrtEpFactory* self, OrtAllocator* allocator) noexcept;
  static OrtStatus* ORT_API_CALL create_data_transfer(OrtEpFactory* self, OrtDataTransferImpl** transfer) noexcept;
  static bool ORT_API_CALL is_stream_aware(const OrtEpFactory* self) noexcept;
  static OrtStatus* ORT_API_CALL create_stream(OrtEpFactory* self, const OrtMemoryDevice* device,
                                               const OrtKeyValuePairs* options, OrtSyncStreamImpl** stream) noexcept;
  static OrtStatus* ORT_API_CALL custom_op_domain_count(OrtEpFactory* self, std::size_t* count) noexcept;
  static OrtStatus* ORT_API_CALL custom_op_domains(OrtEpFactory* self, OrtCustomOpDomain** domains,
                                                   std::size_t count) noexcept;

  const Api api_;
  const OrtLogger* logger_;
};

}  // namespace winml::ort_ep
