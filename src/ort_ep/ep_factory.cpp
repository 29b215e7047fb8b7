#include "ort_ep/ep_factory.h"

#include <cstring>

#include "ort_ep/ref_ep.h"
#include "runtime/ref_blob/ref_blob.h"

namespace winml::ort_ep {

RefEpFactory::RefEpFactory(const Api& api, const OrtLogger* logger) : OrtEpFactory{}, api_(api), logger_(logger) {
  ort_version_supported = ORT_API_VERSION;
  GetName = name_of;
  GetVendor = vendor_of;
  GetSupportedDevices = supported_devices;
  CreateEp = create_ep;
  ReleaseEp = release_ep;
  GetVendorId = vendor_id_of;
  GetVersion = version_of;
  ValidateCompiledModelCompatibilityInfo = validate_compatibility;
  CreateAllocator = create_allocator;
  ReleaseAllocator = release_allocator;
  CreateDataTransfer = create_data_transfer;
  IsStreamAware = is_stream_aware;
  CreateSyncStreamForDevice = create_stream;
  GetNumCustomOpDomains = custom_op_domain_count;
  GetCustomOpDomains = custom_op_domains;
}

const char* ORT_API_CALL RefEpFactory::name_of(const OrtEpFactory*) noexcept { return runtime::ref_blob::kSource; }
const char* ORT_API_CALL RefEpFactory::vendor_of(const OrtEpFactory*) noexcept { return "winml-make"; }
std::uint32_t ORT_API_CALL RefEpFactory::vendor_id_of(const OrtEpFactory*) noexcept { return 0; }
const char* ORT_API_CALL RefEpFactory::version_of(const OrtEpFactory*) noexcept { return WINML_REF_EP_VERSION; }

OrtStatus* ORT_API_CALL RefEpFactory::supported_devices(OrtEpFactory* self, const OrtHardwareDevice* const* devices,
                                                        std::size_t count, OrtEpDevice** ep_devices,
                                                        std::size_t max_ep_devices,
                                                        std::size_t* ep_device_count) noexcept {
  auto* f = static_cast<RefEpFactory*>(self);
  *ep_device_count = 0;
  return guarded(f->api_, [&] {
    for (std::size_t i = 0; i < count && *ep_device_count < max_ep_devices; ++i) {
      if (f->api_.ort->HardwareDevice_Type(devices[i]) != OrtHardwareDeviceType_CPU) continue;
      OrtEpDevice* d = nullptr;
      check(f->api_, f->api_.ep->CreateEpDevice(f, devices[i], nullptr, nullptr, &d), "CreateEpDevice");
      ep_devices[(*ep_device_count)++] = d;
      break;  // one CPU device: the runtime spreads over every core itself
    }
  });
}

OrtStatus* ORT_API_CALL RefEpFactory::create_ep(OrtEpFactory* self, const OrtHardwareDevice* const*,
                                                const OrtKeyValuePairs* const*, std::size_t,
                                                const OrtSessionOptions* options, const OrtLogger* logger,
                                                OrtEp** ep) noexcept {
  auto* f = static_cast<RefEpFactory*>(self);
  *ep = nullptr;
  return guarded(f->api_, [&] { *ep = new RefEp(f->api_, read_settings(f->api_, options), logger); });
}

void ORT_API_CALL RefEpFactory::release_ep(OrtEpFactory*, OrtEp* ep) noexcept { delete static_cast<RefEp*>(ep); }

OrtStatus* ORT_API_CALL RefEpFactory::validate_compatibility(OrtEpFactory*, const OrtHardwareDevice* const*,
                                                             std::size_t, const char* info,
                                                             OrtCompiledModelCompatibility* result) noexcept {
  // A blob of this format loads on any CPU (another instruction set repacks
  // the weights, which is slower): no other format loads.
  *result = info && std::strcmp(info, runtime::ref_blob::kSdkVersion) == 0
                ? OrtCompiledModelCompatibility_EP_SUPPORTED_OPTIMAL
                : OrtCompiledModelCompatibility_EP_UNSUPPORTED;
  return nullptr;
}

OrtStatus* ORT_API_CALL RefEpFactory::create_allocator(OrtEpFactory*, const OrtMemoryInfo*, const OrtKeyValuePairs*,
                                                       OrtAllocator** allocator) noexcept {
  *allocator = nullptr;  // ORT's CPU allocator
  return nullptr;
}

void ORT_API_CALL RefEpFactory::release_allocator(OrtEpFactory*, OrtAllocator*) noexcept {}

OrtStatus* ORT_API_CALL RefEpFactory::create_data_transfer(OrtEpFactory*, OrtDataTransferImpl** transfer) noexcept {
  *transfer = nullptr;  // CPU memory only
  return nullptr;
}

bool ORT_API_CALL RefEpFactory::is_stream_aware(const OrtEpFactory*) noexcept { return false; }

OrtStatus* ORT_API_CALL RefEpFactory::create_stream(OrtEpFactory*, const OrtMemoryDevice*, const OrtKeyValuePairs*,
                                                    OrtSyncStreamImpl** stream) noexcept {
  *stream = nullptr;
  return nullptr;
}

OrtStatus* ORT_API_CALL RefEpFactory::custom_op_domain_count(OrtEpFactory*, std::size_t* count) noexcept {
  *count = 0;
  return nullptr;
}

OrtStatus* ORT_API_CALL RefEpFactory::custom_op_domains(OrtEpFactory*, OrtCustomOpDomain**, std::size_t) noexcept {
  return nullptr;
}

}  // namespace winml::ort_ep
